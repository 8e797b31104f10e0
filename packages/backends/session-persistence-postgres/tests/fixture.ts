/**
 * Test-only store fixtures of the PostgreSQL backend: a database per test file (created from the run's server,
 * dropped after the file), a fresh schema per store, the `damage` kit of spec 02 §9 done with SQL on the rows (it
 * keeps each damaged record's checksum consistent, as a writer that stored bad text would), and the `worker` spec
 * for child processes. Never shipped.
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { afterAll, beforeAll, inject } from 'vitest'
import { recordChecksum, type LockOwner } from '@logbook/session-persistence'
import { changeOneDigit, rawRecordRow, type DamageKit, type StoreFixture } from '@logbook/session-persistence-conformance'
import PostgresSessionPersistence from '../src/index.ts'
import { applicationName } from '../src/store.ts'
import './server/provided.ts'

/** The backend module a child process mounts. */
export const PLUGIN_MODULE = fileURLToPath(new URL('../src/index.ts', import.meta.url))

/** `url` with its database replaced by `database`. */
export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url)
  parsed.pathname = `/${database}`
  return parsed.toString()
}

/** Run `fn` on a short-lived client of its own. */
export async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url })
  client.on('error', () => {}) // a test may terminate backends; the failing query reports it
  await client.connect()
  try {
    return await fn(client)
  } finally {
    await client.end()
  }
}

/** One SQL statement on a short-lived client; returns the rows. */
export const sql = async <R = Record<string, unknown>>(url: string, text: string, values: unknown[] = []): Promise<R[]> =>
  withClient(url, async client => (await client.query(text, values)).rows as R[])

/**
 * A database of its own for the calling test file: created before its tests, dropped (with `FORCE`) after them.
 * Returns a getter for its connection string.
 */
export function useTestDatabase(): () => string {
  let url: string | undefined
  const admin = inject('pgAdminUrl')
  const name = `lb_${randomBytes(6).toString('hex')}`
  beforeAll(async () => {
    await sql(admin, `CREATE DATABASE ${name} ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0`)
    url = withDatabase(admin, name)
  })
  afterAll(async () => {
    await sql(admin, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
  })
  return () => {
    if (url === undefined) throw new Error('useTestDatabase: the database is made in beforeAll')
    return url
  }
}

/** A fresh schema name. */
export const freshSchema = (): string => `t_${randomBytes(6).toString('hex')}`

interface RawRow { seq: number; last_seq: number; body: string }

const q = (schema: string, table: string): string => `"${schema}".${table}`

async function rowsOf(client: pg.Client, schema: string, id: string): Promise<RawRow[]> {
  const result = await client.query(`SELECT seq::float8 AS seq, last_seq::float8 AS last_seq, body FROM ${q(schema, 'logbook_events')} WHERE session_id = $1 ORDER BY seq`, [id])
  return result.rows as RawRow[]
}

/** Store `body` at row `seq` with a matching checksum, as a writer would (`keepChecksum`: leave the old one). */
async function setBody(client: pg.Client, schema: string, id: string, seq: number, body: string, keepChecksum = false): Promise<void> {
  if (keepChecksum) await client.query(`UPDATE ${q(schema, 'logbook_events')} SET body = $3 WHERE session_id = $1 AND seq = $2`, [id, seq, body])
  else await client.query(`UPDATE ${q(schema, 'logbook_events')} SET body = $3, crc = $4 WHERE session_id = $1 AND seq = $2`, [id, seq, body, recordChecksum(body)])
}

/** Header fields mirrored in an indexed column, with the column's type test. */
const HEADER_COLUMNS: Record<string, { column: string; fits: (v: unknown) => boolean }> = {
  version: { column: 'version', fits: v => Number.isSafeInteger(v) && Math.abs(v as number) < 2 ** 31 },
  createdAt: { column: 'created_at', fits: v => Number.isSafeInteger(v) },
  cwd: { column: 'cwd', fits: v => v === undefined || typeof v === 'string' },
  parentSession: { column: 'parent_session', fits: v => v === undefined || typeof v === 'string' },
}

/** The damage kit of spec 02 §9 for `schema` in the database at `url` (records = event rows in seq order). */
export function postgresDamage(url: string, schema: string): DamageKit {
  const events = q(schema, 'logbook_events')
  const sessions = q(schema, 'logbook_sessions')
  return {
    tearLastRecord: (id, keep) => withClient(url, async (client) => {
      const last = (await rowsOf(client, schema, id)).at(-1)
      if (last === undefined) throw new Error(`damage: session ${id} has no rows`)
      if (keep < last.body.length) await setBody(client, schema, id, last.seq, last.body.slice(0, keep))
      return last.body.length
    }),
    corruptRecord: (id, index, kind) => withClient(url, async (client) => {
      const row = (await rowsOf(client, schema, id))[index]
      if (row === undefined) throw new Error(`damage: session ${id} has no row ${index}`)
      if (kind === 'garbage') return setBody(client, schema, id, row.seq, `#garbage ${row.body.slice(0, 8)}`)
      if (kind === 'checksum') return setBody(client, schema, id, row.seq, changeOneDigit(row.body), true)
      const value = JSON.parse(row.body) as Record<string, unknown>
      if ('seq0' in value) value.seq0 = row.seq + 1
      else value.seq = row.seq + 1
      return setBody(client, schema, id, row.seq, JSON.stringify(value))
    }),
    appendRawRecord: (id, text) => withClient(url, async (client) => {
      const [session] = (await client.query(`SELECT next_seq::float8 AS next_seq FROM ${sessions} WHERE id = $1`, [id])).rows as { next_seq: number }[]
      if (session === undefined) throw new Error(`damage: session ${id} is not stored`)
      const last = (await rowsOf(client, schema, id)).at(-1)
      const end = Math.max(session.next_seq, last === undefined ? 0 : last.last_seq + 1)
      const row = rawRecordRow(text, end, session.next_seq)
      await client.query(`INSERT INTO ${events} (session_id, seq, last_seq, kind, type, time, body, crc) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [id, row.firstSeq, row.lastSeq, row.kind, row.type, row.time, text, recordChecksum(text)])
      await client.query(`UPDATE ${sessions} SET next_seq = greatest(next_seq, $2), updated_at = coalesce($3, updated_at), revision = revision + 1 WHERE id = $1`,
        [id, row.lastSeq + 1, row.extendsAt ?? null])
    }),
    setHeaderField: (id, key, value) => withClient(url, async (client) => {
      const [row] = (await client.query(`SELECT header FROM ${sessions} WHERE id = $1`, [id])).rows as { header: string }[]
      if (row === undefined) throw new Error(`damage: session ${id} is not stored`)
      const header = JSON.parse(row.header) as Record<string, unknown>
      if (value === undefined) delete header[key]
      else header[key] = value
      const text = JSON.stringify(header)
      await client.query(`UPDATE ${sessions} SET header = $2, crc = $3, revision = revision + 1 WHERE id = $1`, [id, text, recordChecksum(text)])
      const mirrored = HEADER_COLUMNS[key]
      if (mirrored?.fits(value) === true) await client.query(`UPDATE ${sessions} SET ${mirrored.column} = $2 WHERE id = $1`, [id, value ?? null])
    }),
    corruptHeader: id => withClient(url, async (client) => {
      const text = '{"type":"session",'
      await client.query(`UPDATE ${sessions} SET header = $2, crc = $3, revision = revision + 1 WHERE id = $1`, [id, text, recordChecksum(text)])
    }),
    flipHeaderDigit: id => withClient(url, async (client) => {
      const [row] = (await client.query(`SELECT header FROM ${sessions} WHERE id = $1`, [id])).rows as { header: string }[]
      if (row === undefined) throw new Error(`damage: session ${id} is not stored`)
      const text = row.header.replace(/"createdAt":(\d*)(\d)/, (_, head: string, digit: string) => `"createdAt":${head}${digit === '9' ? '8' : Number(digit) + 1}`)
      await client.query(`UPDATE ${sessions} SET header = $2, revision = revision + 1 WHERE id = $1`, [id, text])
    }),
    writeLockRecord: (id, holder: LockOwner) => withClient(url, async (client) => {
      // A live lease: it expires a day from the server's now (expiry is tested by moving expires_at).
      await client.query(`INSERT INTO ${q(schema, 'logbook_leases')} (session_id, owner_id, pid, host, process_start, acquired_at, token, expires_at)
        VALUES ($1, $2, $3, $4, $5, $6, $7, now() + interval '1 day')
        ON CONFLICT (session_id) DO UPDATE SET owner_id = excluded.owner_id, pid = excluded.pid, host = excluded.host,
          process_start = excluded.process_start, acquired_at = excluded.acquired_at, token = excluded.token, expires_at = excluded.expires_at`,
      [id, holder.ownerId, holder.pid, holder.host, holder.processStart, holder.acquiredAt, randomUUID()])
    }),
  }
}

/** A store fixture: plugin, config, damage kit, worker spec, plus its url and schema. */
export type PostgresFixture = StoreFixture & { readonly url: string; readonly schema: string }

/** A fresh store (a new schema in the file's database); `extra` overrides config keys. */
export function createPostgresFixture(url: string, extra: Record<string, unknown> = {}): PostgresFixture {
  const schema = freshSchema()
  const config = { connectionString: url, schema, poolSize: 4, ...extra }
  const worker = { module: PLUGIN_MODULE, config, settle: (pid: number) => serverDone(url, pid) }
  return { plugin: PostgresSessionPersistence, config, damage: postgresDamage(url, schema), worker, url, schema }
}

/**
 * Wait until the server has no connection of the killed process `pid` left: a transaction the client sent its COMMIT
 * for may still be committed after the client died, and a read before that would not see what the next process finds.
 */
async function serverDone(url: string, pid: number): Promise<void> {
  const name = applicationName(pid)
  const deadline = Date.now() + 30_000
  await withClient(url, async client => {
    for (;;) {
      const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1', [name])
      if (rows[0]!.n === 0) return
      if (Date.now() > deadline) throw new Error(`the server still runs ${rows[0]!.n} connection(s) of killed process ${pid}`)
      await new Promise(resolve => setTimeout(resolve, 10))
    }
  })
}

/** Drop a fixture's schema. */
export async function destroyPostgresFixture(fixture: StoreFixture): Promise<void> {
  const { url, schema } = fixture as PostgresFixture
  await sql(url, `DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
}
