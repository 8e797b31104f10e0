/**
 * Reading one session (02 §6b "Reads"): the session row and its event rows in one `REPEATABLE READ` snapshot. A full
 * scan reads each row's body and checksum with the server's verdict on its columns (sql.ts `selectCheckedBodies`),
 * and reads every column of every row again, in the same snapshot, only when that verdict, a checksum, a body or the
 * seqs leave any doubt; the full columns then name the defect. A seek reads the rows from `fromSeq − 1023` (a packed
 * row holds ≤ 1024 members) whose last seq reaches `fromSeq`, through the `(session_id, seq)` key, never the whole
 * log. Rows at or beyond `next_seq` and rows missing below it are defects too.
 */
import {
  checkedBodyRecords, EventRowRecords, headerColumnProblem, parseHeaderColumn, ROW_SEEK_WINDOW, type CheckedBodyRow, type EventRowColumns,
  type PhysicalScan, type RevisionRowCounts,
} from '@logbook/session-persistence'
import { headerChecksumProblem, revisionToken, type SessionRow } from './session-row.ts'
import type { Client, PgStore } from './store.ts'

const NO_BOUND = -Number.MAX_SAFE_INTEGER

/** What a scan needs from its backend: identity, the row-count cache and the rows-read counter. */
export interface ScanState {
  readonly storeId: string
  readonly rowCounts: RevisionRowCounts
  countRead(rows: number): void
}

/** The event rows of `id` from `from` whose last seq reaches `reach`, in seq order. */
export async function selectRows(client: Client, store: PgStore, id: string, from: number, reach: number): Promise<EventRowColumns[]> {
  const result = await client.query({ text: store.sql.selectEvents, values: [id, from, reach], rowMode: 'array' })
  return result.rows as unknown as EventRowColumns[]
}

/**
 * Scan session `id`; `undefined` when no session row exists. A seek reports `physicalLength` −1 unless the row count
 * of this revision is cached (the coordinator uses it only from commits).
 * A header whose checksum fails is the scan's `headerDefect`, a row's a defect record; both are refused by the
 * coordinator as corruption.
 * @throws `STORE_IO`.
 */
export async function scanSession(store: PgStore, id: string, fromSeq: number | undefined, state: ScanState): Promise<PhysicalScan<number> | undefined> {
  const seek = fromSeq !== undefined && fromSeq > 0
  const read = await store.snapshot(async (client) => {
    const session = (await client.query<SessionRow>(store.sql.selectSession, [id])).rows[0]
    if (session === undefined) return undefined
    if (!seek) {
      // The bodies decode inside the snapshot, so a doubt reads the same rows' columns.
      const checked = await client.query({ text: store.sql.selectCheckedBodies, values: [id], rowMode: 'array' })
      const bodies = checked.rows as unknown as CheckedBodyRow[]
      const quick = checkedBodyRecords(bodies, session.next_seq)
      if (quick !== undefined) return { session, rowCount: bodies.length, ...quick }
    }
    const rows = seek ? await selectRows(client, store, id, fromSeq - ROW_SEEK_WINDOW, fromSeq) : await selectRows(client, store, id, NO_BOUND, NO_BOUND)
    const walk = new EventRowRecords(session.next_seq, seek ? fromSeq : 0)
    walk.add(rows)
    return { session, rowCount: rows.length, ...walk.finish() }
  })
  if (read === undefined) return undefined
  const { session, rowCount, records, startSeq } = read
  const header = parseHeaderColumn(session)
  const headerDefect = headerChecksumProblem(session)
  const headerProblem = header === undefined ? undefined : headerColumnProblem(session, header)
  const revision = revisionToken(state.storeId, session.incarnation, session.revision)
  state.countRead(rowCount)
  const physicalLength = state.rowCounts.scanned(id, revision, rowCount, seek)
  return {
    header,
    ...(headerProblem === undefined ? {} : { headerProblem }),
    ...(headerDefect === undefined ? {} : { headerDefect }),
    // this store format has always had checksums
    checksums: true,
    storeId: state.storeId,
    incarnation: session.incarnation,
    revision,
    physicalLength,
    startSeq,
    records,
  }
}
