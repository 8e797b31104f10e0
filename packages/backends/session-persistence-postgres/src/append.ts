/**
 * The fenced append (02 §6b "Append"): one write-behind batch is ONE transaction — in the common case one statement
 * (sql.ts `fencedAppend`) that checks the caller's lease token, the session's incarnation, revision and next seq,
 * moves the cursor and inserts every row; the `(session_id, seq)` primary key is the last guard. A connection lost
 * while the statement was in flight is resolved by reading the stored state: not committed → retryable `STORE_IO`;
 * committed → success; unknown → terminal `STORE_IO`.
 */
import type { EncodedRecord, ExpectedState } from '@logbook/session-persistence'
import { lockLostError, SessionPersistenceError } from '@logbook/session-persistence'
import { codeOf, isConnectionFault } from './faults.ts'
import { holderOf, type LeaseRow, type LeaseToken } from './lease.ts'
import { conflict, parseRevision, type SessionRow } from './session-row.ts'
import { ROWS_PER_STATEMENT } from './sql.ts'
import type { Client, PgStore } from './store.ts'

/** What an append or materialisation committed. */
export interface Committed {
  readonly nextSeq: number
  readonly revision: number
  readonly incarnation: string
}

/** The 7 bound values of each row, flattened. */
export function rowValues(records: readonly EncodedRecord[]): unknown[] {
  const values: unknown[] = []
  for (const r of records) values.push(r.seq, r.lastSeq, r.kind, r.type, r.time, r.text, r.crc)
  return values
}

/** Insert `records` of `id` on `client` in statements of at most `ROWS_PER_STATEMENT` rows. */
export async function insertRows(client: Client, store: PgStore, id: string, records: readonly EncodedRecord[]): Promise<void> {
  for (let i = 0; i < records.length; i += ROWS_PER_STATEMENT) {
    const chunk = records.slice(i, i + ROWS_PER_STATEMENT)
    await client.query(store.sql.insertEvents(chunk.length), [id, ...rowValues(chunk)])
  }
}

/** A primary-key collision: rows already stored at the batch's seqs (the last guard of the fence). */
export function rowCollision(id: string, error: unknown, records: readonly EncodedRecord[]): SessionPersistenceError | undefined {
  if (codeOf(error) !== '23505') return undefined
  return conflict(id, `a row is already stored at seq ${records[0]?.seq ?? '?'}`, { actual: records[0]?.seq })
}

/** Why a fenced write matched nothing, from one read of the session and lease rows. */
async function refusal(store: PgStore, token: LeaseToken, expect: ExpectedState, expected: { incarnation: string }, first: number): Promise<SessionPersistenceError> {
  const id = token.sessionId
  const [lease] = await store.query<LeaseRow>(store.sql.selectLease, [id])
  if (lease?.token !== token.lease) return lockLostError(id, lease === undefined ? undefined : holderOf(lease))
  const [row] = await store.query<SessionRow>(store.sql.selectSession, [id])
  if (row === undefined) return conflict(id, 'the session was deleted underneath')
  if (row.incarnation !== expected.incarnation) return conflict(id, 'the session was deleted and re-created underneath (incarnation differs)')
  if (row.next_seq !== expect.nextSeq || first !== row.next_seq) {
    return conflict(id, `stored next seq is ${row.next_seq}`, { expected: row.next_seq, actual: first })
  }
  return conflict(id, 'storage changed underneath (revision differs)')
}

/** Settle an append whose connection was lost in flight, by the stored cursor and revision. */
async function settleLost(store: PgStore, token: LeaseToken, expect: ExpectedState, expected: { incarnation: string; revision: number }, nextSeq: number, backendPid: number, lost: unknown): Promise<Committed> {
  const id = token.sessionId
  let row: SessionRow | undefined
  let lease: LeaseRow | undefined
  let busy = true
  try {
    ;[row] = await store.query<SessionRow>(store.sql.selectSession, [id])
    ;[lease] = await store.query<LeaseRow>(store.sql.selectLease, [id])
    busy = (await store.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [backendPid])).length > 0
  } catch (checkError) {
    throw new SessionPersistenceError('STORE_IO', `session "${id}": the connection was lost during an append and its outcome cannot be checked; reopen the session`, {
      sessionId: id,
      cause: new AggregateError([lost, checkError], 'append outcome unknown'),
      details: { reason: 'connection' },
    })
  }
  if (!busy && row?.incarnation === expected.incarnation && lease?.token === token.lease) {
    if (row.next_seq === expect.nextSeq && row.revision === expected.revision) {
      throw new SessionPersistenceError('STORE_IO', `session "${id}": the connection was lost during an append, which did not commit; it is retried`, {
        sessionId: id,
        cause: lost,
        details: { reason: 'connection' },
      })
    }
    if (row.next_seq === nextSeq && row.revision === expected.revision + 1) return { nextSeq, revision: row.revision, incarnation: row.incarnation }
  }
  throw new SessionPersistenceError('STORE_IO', `session "${id}": the connection was lost during an append whose outcome is unknown; reopen the session`, {
    sessionId: id,
    cause: new AggregateError([lost], 'append outcome unknown'),
    details: { reason: 'connection' },
  })
}

/**
 * Append `records` under the fence.
 * @throws SessionPersistenceError `SESSION_LOCKED` (`lost`), `SESSION_CONFLICT`, `STORE_IO` (nothing written; retryable
 * unless the outcome of a lost connection is unknown).
 */
export async function fencedAppend(store: PgStore, storeId: string, token: LeaseToken, expect: ExpectedState, records: readonly EncodedRecord[]): Promise<Committed> {
  const id = token.sessionId
  const expected = parseRevision(storeId, expect.revision)
  if (expected === undefined) throw conflict(id, 'the expected revision is not one of this store')
  const first = records[0]!.seq
  if (first !== expect.nextSeq) throw await refusal(store, token, expect, expected, first)
  const last = records[records.length - 1]!
  const nextSeq = last.lastSeq + 1
  const head = records.slice(0, ROWS_PER_STATEMENT)
  const values = [id, token.lease, expected.incarnation, expected.revision, expect.nextSeq, nextSeq, last.lastTime, ...rowValues(head)]
  const client = await store.connect()
  let released = false
  const release = (error?: Error): void => {
    if (released) return
    released = true
    client.release(error)
  }
  const multi = records.length > head.length
  try {
    if (multi) await client.query('BEGIN')
    // Named, so each connection parses and plans the statement of a batch size once.
    const name = `logbook-append-${store.sql.schema}-${head.length}`
    const result = await client.query<{ revision: number | null }>({ name, text: store.sql.fencedAppend(head.length), values })
    const revision = result.rows[0]?.revision ?? null
    if (revision === null) {
      if (multi) await client.query('ROLLBACK')
      release()
      throw await refusal(store, token, expect, expected, first)
    }
    if (multi) {
      await insertRows(client, store, id, records.slice(head.length))
      await client.query('COMMIT')
    }
    return { nextSeq, revision, incarnation: expected.incarnation }
  } catch (error) {
    if (error instanceof SessionPersistenceError) throw error
    // A failed statement leaves a multi-statement transaction aborted: never hand that connection back.
    release(error as Error)
    if (isConnectionFault(error)) {
      const pid = (client as unknown as { processID?: number }).processID ?? -1
      return await settleLost(store, token, expect, expected, nextSeq, pid, error)
    }
    throw rowCollision(id, error, records) ?? store.fault(error)
  } finally {
    release()
  }
}
