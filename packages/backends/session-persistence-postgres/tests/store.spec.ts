/**
 * Backend-only behaviour of the PostgreSQL store (02 §6b): the versioned schema (created once under an advisory lock,
 * newer refused naming the direction, foreign tables refused), per-record checksums on every read path, row columns
 * checked against their bodies, connection faults (refused at boot, statement timeout, a connection dropped
 * mid-append) and a bad config row.
 */
import { Context } from '@deepseek-ai/cordis'
import SessionStore from '@logbook/session'
import { randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { checkedBodyRecords, encodeBatch, EventRowRecords, recordChecksum, type CheckedBodyRow, type EventRowColumns, type LockOwner, type PhysicalScan } from '@logbook/session-persistence'
import { PostgresBackend } from '../src/backend.ts'
import PostgresSessionPersistence from '../src/index.ts'
import { Statements } from '../src/sql.ts'
import { applicationName, PgStore, type Client } from '../src/store.ts'
import { freePort } from './server/throwaway.ts'
import type { SessionEvent } from '@logbook/session'
import { header, turn } from './events.ts'
import { freshSchema, sql, useTestDatabase, withClient } from './fixture.ts'
import { mountPostgres, type Mounted } from './mount.ts'

const database = useTestDatabase()
const mounts: Mounted[] = []
const schemas: string[] = []

afterEach(async () => {
  for (const mount of mounts.splice(0)) await mount.stop()
  for (const schema of schemas.splice(0)) await sql(database(), `DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
})

const newSchema = (): string => {
  const schema = freshSchema()
  schemas.push(schema)
  return schema
}

async function mount(schema: string, extra: Record<string, unknown> = {}): Promise<Mounted> {
  const m = await mountPostgres({ connectionString: database(), schema, poolSize: 4, ...extra })
  mounts.push(m)
  return m
}

async function rejection(promise: Promise<unknown>): Promise<Error & { code?: string; details?: Record<string, unknown>; seq?: number }> {
  try {
    await promise
  } catch (error) {
    return error as Error & { code?: string }
  }
  throw new Error('expected a rejection')
}

/** Boot the plugin alone and return the error its start fails with. */
async function bootError(config: Record<string, unknown>): Promise<Error & { code?: string }> {
  const app = new Context()
  app.logger.exporter({ levels: { default: 1 }, export: () => {} })
  await app.plugin(SessionStore)
  const fiber = app.plugin(PostgresSessionPersistence, config as never)
  try {
    return await rejection((async () => {
      await fiber
    })())
  } finally {
    await fiber.dispose()
  }
}

/** A lock owner of this process, new each call. */
const freshOwner = (): LockOwner => ({ ownerId: randomUUID(), pid: process.pid, host: hostname(), processStart: null, acquiredAt: 1 })

const table = (schema: string, name: string): string => `"${schema}".${name}`

/** The seqs of every event a scan decoded, in order. */
const scannedSeqs = (scan: PhysicalScan<number>): number[] => scan.records.flatMap(r => (r.result.ok ? r.result.events.map(e => e.seq) : []))

/** A started backend of its own, on a fresh schema unless one is given, driven directly (no coordinator). */
async function rawBackend(leaseDurationMs: number, schema = newSchema()): Promise<{ backend: PostgresBackend; signal: AbortSignal; schema: string }> {
  const backend = new PostgresBackend({ connectionString: database(), schema, poolSize: 2, statementTimeoutMs: 0, connectTimeoutMs: 5000, ssl: false, leaseDurationMs })
  const signal = new AbortController().signal
  await backend.start(signal)
  return { backend, signal, schema }
}

describe('schema', () => {
  it('P-119 is created at start in version 2 with the five tables; two boots at once create it once', async () => {
    const schema = newSchema()
    const backends = [0, 1, 2].map(() => new PostgresBackend({ connectionString: database(), schema, poolSize: 2, statementTimeoutMs: 0, connectTimeoutMs: 5000, ssl: false, leaseDurationMs: 30_000 }))
    await Promise.all(backends.map(b => b.start(new AbortController().signal)))
    const rows = await sql<{ store_id: string; schema_version: number }>(database(), `SELECT store_id, schema_version FROM ${table(schema, 'logbook_store')}`)
    expect(rows).toHaveLength(1)
    expect(rows[0]!.schema_version).toBe(2)
    const tables = await sql<{ table_name: string }>(database(), `SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name`, [schema])
    expect(tables.map(t => t.table_name)).toEqual(['logbook_events', 'logbook_leases', 'logbook_projection_checkpoints', 'logbook_sessions', 'logbook_store'])
    for (const b of backends) await b.close()
  })

  it('P-119 a newer schema version is refused naming the direction; tables of the same names that are not ours are foreign', async () => {
    const newer = newSchema()
    await (await mount(newer)).stop()
    mounts.length = 0
    await sql(database(), `UPDATE ${table(newer, 'logbook_store')} SET schema_version = 3`)
    const error = await bootError({ connectionString: database(), schema: newer })
    expect(error.code).toBe('STORE_INCOMPATIBLE')
    expect(error.message).toMatch(/newer Logbook \(schema version 3, this build reads 2\): upgrade Logbook/)
    expect((error as { details?: { direction?: string } }).details?.direction).toBe('newer')

    const foreign = newSchema()
    await sql(database(), `CREATE SCHEMA "${foreign}"`)
    await sql(database(), `CREATE TABLE ${table(foreign, 'logbook_sessions')} (id int)`)
    expect((await bootError({ connectionString: database(), schema: foreign })).code).toBe('STORE_FOREIGN')
    const altered = newSchema()
    await (await mount(altered)).stop()
    mounts.length = 0
    await sql(database(), `ALTER TABLE ${table(altered, 'logbook_events')} ADD COLUMN extra text`)
    const alteredError = await bootError({ connectionString: database(), schema: altered })
    expect(alteredError.code).toBe('STORE_FOREIGN')
    expect(alteredError.message).toMatch(/table logbook_events has columns/)
  })

  it('P-187 a version-1 store is migrated at start: the event rows lose their foreign key, the sessions read as before; a delete removes its rows itself', async () => {
    const schema = newSchema()
    const events = [...turn(0, 1), ...turn(6, 2)]
    const first = await mount(schema)
    await first.store('s1', events)
    await first.stop()
    mounts.length = 0
    // Version 1 as it was created: the event rows reference their session row, and the store says version 1.
    await sql(database(), `ALTER TABLE ${table(schema, 'logbook_events')} ADD FOREIGN KEY (session_id) REFERENCES ${table(schema, 'logbook_sessions')} (id) ON DELETE CASCADE`)
    await sql(database(), `UPDATE ${table(schema, 'logbook_store')} SET schema_version = 1`)
    const foreignKeys = (): Promise<unknown[]> => sql(database(), `SELECT conname FROM pg_constraint WHERE conrelid = '${table(schema, 'logbook_events')}'::regclass AND contype = 'f'`)
    expect(await foreignKeys()).toHaveLength(1)

    const { backend, signal } = await rawBackend(30_000, schema)
    try {
      expect((await sql<{ schema_version: number }>(database(), `SELECT schema_version FROM ${table(schema, 'logbook_store')}`))[0]!.schema_version).toBe(2)
      expect(await foreignKeys()).toEqual([])
      const scanned = (await backend.scan('s1', {}, signal))!
      expect(scannedSeqs(scanned)).toEqual(events.map(e => e.seq))

      const token = await backend.lock('s1', freshOwner(), signal)
      await backend.remove(token, scanned.revision, signal)
      await backend.unlock(token, signal)
      expect(await sql(database(), `SELECT seq FROM ${table(schema, 'logbook_events')} WHERE session_id = 's1'`)).toEqual([])
      const again = await backend.lock('s1', freshOwner(), signal)
      await backend.materialize(again, header('s1'), encodeBatch(turn(0, 1), true), signal)
      expect(scannedSeqs((await backend.scan('s1', {}, signal))!)).toEqual(turn(0, 1).map(e => e.seq))
      await backend.unlock(again, signal)
    } finally {
      await backend.close()
    }
  })
})

describe('checksums', () => {
  it('P-120 a flipped byte in an event row is SESSION_CORRUPT naming the record on every read path; nothing is rewritten', async () => {
    const schema = newSchema()
    const m = await mount(schema)
    await m.store('s1', [...turn(0, 1), ...turn(6, 2)])
    const [before] = await sql<{ body: string; crc: number }>(database(), `SELECT body, crc::float8 AS crc FROM ${table(schema, 'logbook_events')} WHERE session_id = 's1' AND seq = 6`)
    const flipped = before!.body.replace('"turn":2', '"turn":3')
    await sql(database(), `UPDATE ${table(schema, 'logbook_events')} SET body = $1 WHERE session_id = 's1' AND seq = 6`, [flipped])
    for (const attempt of [m.persistence.open('s1', 'read'), m.persistence.open('s1', 'write'), m.persistence.inspect('s1'), m.persistence.readFrom('s1', 6)]) {
      const error = await rejection(attempt)
      expect(error.code).toBe('SESSION_CORRUPT')
      expect(error.message).toMatch(/^session "s1": corrupt log: row at seq 6: checksum mismatch \(stored [0-9a-f]{8}, computed [0-9a-f]{8}\) at seq 6$/)
      expect(error.seq).toBe(6)
    }
    const [after] = await sql<{ body: string; crc: number }>(database(), `SELECT body, crc::float8 AS crc FROM ${table(schema, 'logbook_events')} WHERE session_id = 's1' AND seq = 6`)
    expect(after).toEqual({ body: flipped, crc: before!.crc })
    expect((await m.persistence.readFrom('s1', 12))).toEqual([])
  })

  it('P-181 a row whose body is JSON null (its checksum matching) is SESSION_CORRUPT naming its seq, not a TypeError; nothing is rewritten', async () => {
    const schema = newSchema()
    const m = await mount(schema)
    await m.store('s1', [...turn(0, 1), ...turn(6, 2)])
    await sql(database(), `UPDATE ${table(schema, 'logbook_events')} SET body = 'null', crc = $1 WHERE session_id = 's1' AND seq = 1`, [recordChecksum('null')])
    const rows = `SELECT seq::float8 AS seq, body, crc::float8 AS crc FROM ${table(schema, 'logbook_events')} WHERE session_id = 's1' ORDER BY seq`
    const before = await sql(database(), rows)
    const error = await rejection(m.persistence.open('s1', 'write'))
    expect(error.code).toBe('SESSION_CORRUPT')
    expect(error.message).toContain('row at seq 1: body seq undefined differs from seq column')
    expect(error.seq).toBe(1)
    expect(await sql(database(), rows)).toEqual(before)
  })

  it('P-120 a flipped header or last record makes the listing report a problem and list the rest', async () => {
    const schema = newSchema()
    const m = await mount(schema)
    for (const id of ['a', 'b', 'c']) await m.store(id, turn(0, 1))
    await sql(database(), `UPDATE ${table(schema, 'logbook_sessions')} SET header = replace(header, 'home', 'hove') WHERE id = 'a'`)
    await sql(database(), `UPDATE ${table(schema, 'logbook_events')} SET body = replace(body, 'completed', 'completes') WHERE session_id = 'b' AND seq = 5`)
    const page = await m.persistence.list()
    expect(page.items.map(i => i.id)).toEqual(['c'])
    const hex = '\\(stored [0-9a-f]{8}, computed [0-9a-f]{8}\\)'
    expect(page.problems.map(p => [p.sessionId, (p.error as { code?: string }).code, p.error.message]).sort()).toEqual([
      ['a', 'SESSION_CORRUPT', expect.stringMatching(new RegExp(`^session "a": header checksum mismatch ${hex}$`))],
      ['b', 'SESSION_CORRUPT', expect.stringMatching(new RegExp(`^session "b": corrupt log: the record ending at seq 5: checksum mismatch ${hex}$`))],
    ])
    expect((await rejection(m.persistence.open('a', 'read'))).code).toBe('SESSION_CORRUPT')
  })

  it('P-120 every stored header and event row carries the CRC-32 of its text', async () => {
    const schema = newSchema()
    const m = await mount(schema)
    await m.store('s1', turn(0, 1))
    const rows = await sql<{ body: string; crc: number }>(database(), `SELECT body, crc::float8 AS crc FROM ${table(schema, 'logbook_events')} UNION ALL SELECT header, crc::float8 FROM ${table(schema, 'logbook_sessions')}`)
    expect(rows.length).toBe(5)
    for (const row of rows) expect(row.crc).toBe(recordChecksum(row.body))
  })
})

describe('row columns', () => {
  const rowsOf = (schema: string): string =>
    `SELECT seq::float8 AS seq, last_seq::float8 AS last_seq, kind, type, time::float8 AS time, body, crc::float8 AS crc
      FROM ${table(schema, 'logbook_events')} WHERE session_id = 's1' ORDER BY seq`

  /** Two turns around a reasoning run and a named tool-call run: every row kind, text with quotes and non-ASCII. */
  function everyKind(): SessionEvent[] {
    const chunk = (seq: number, c: Record<string, unknown>) => ({ type: 'assistant/chunk', seq, time: 1_700_000_002_000 + seq, data: { turn: 2, step: 1, chunk: c } })
    const reasoning = [0, 1, 2].map(i => chunk(7 + i, { type: 'reasoning-delta', index: 0, text: `"ü${i}\\` }))
    const call = [0, 1, 2].map(i => chunk(10 + i, { type: 'tool-call-delta', index: 1, id: 'c1', name: 'read', argumentsDelta: `{"p":${i}` }))
    return [...turn(0, 1), { type: 'turn/start', seq: 6, time: 1_700_000_002_006, data: { turn: 2 } }, ...reasoning, ...call,
      { type: 'turn/end', seq: 13, time: 1_700_000_002_013, data: { turn: 2, reason: { kind: 'completed' } } }] as unknown as SessionEvent[]
  }

  /** The full scan's rows with the server's word on their columns, int8 values as numbers. */
  async function checkedRows(schema: string): Promise<CheckedBodyRow[]> {
    const rows = await withClient(database(), async client =>
      (await client.query({ text: new Statements(schema).selectCheckedBodies, values: ['s1'], rowMode: 'array' })).rows as [string, string | null, string | null][])
    return rows.map(([body, crc, columns]) => [body, crc === null ? null : Number(crc), columns === null ? null : Number(columns)])
  }

  it('P-106 the full scan\'s column check on the server agrees with every row of a valid log, and its records are the full columns\' records', async () => {
    const schema = newSchema()
    const m = await mount(schema)
    await m.store('s1', everyKind())
    const full = (await sql<{ seq: number; last_seq: number; kind: string; type: string; time: number; body: string; crc: number }>(database(), rowsOf(schema)))
      .map((r): EventRowColumns => [r.seq, r.last_seq, r.kind, r.type, r.time, r.body, r.crc])
    expect(new Set(full.map(row => row[2]))).toEqual(new Set(['event', 'text-chunks', 'reasoning-chunks', 'tool-call-chunks']))
    const bodies = await checkedRows(schema)
    // A scalar row's word is null, a packed row's its last_seq.
    expect(bodies.map(row => row[2])).toEqual(full.map(row => row[2] === 'event' ? null : row[1]))
    const walk = new EventRowRecords(14, 0)
    walk.add(full)
    expect(checkedBodyRecords(bodies, 14)).toEqual(walk.finish())
    expect(await m.persistence.readFrom('s1', 0)).toEqual(everyKind())
  })

  it('P-106 the server finds exactly the row whose column disagrees with its body; a packed row\'s last_seq is handed to the client', async () => {
    const cases: [string, number, number][] = [
      [`type = 'step/end'`, 7, -1],
      ['time = time + 1', 7, -1],
      ['last_seq = 8', 7, -1],
      [`kind = 'reasoning-chunks'`, 8, -1],
      [`type = 'assistant/chunks'`, 8, -1],
      ['time = time - 1', 8, -1],
      ['last_seq = 9', 8, 9],
      ['seq = 12, last_seq = 12', 11, -1],
    ]
    for (const [change, seq, word] of cases) {
      const schema = newSchema()
      const m = await mount(schema)
      await m.store('s1', [...turn(0, 1), ...turn(6, 2)])
      const valid = await checkedRows(schema)
      await sql(database(), `UPDATE ${table(schema, 'logbook_events')} SET ${change} WHERE session_id = 's1' AND seq = ${seq}`)
      const seqs = (await sql<{ seq: number }>(database(), rowsOf(schema))).map(r => r.seq)
      const changedAt = seqs.indexOf(change.startsWith('seq =') ? 12 : seq)
      expect((await checkedRows(schema)).map(row => row[2]), change).toEqual(valid.map((row, i) => i === changedAt ? word : row[2]))
      expect(checkedBodyRecords(await checkedRows(schema), 12), change).toBeUndefined()
    }
  })

  it('P-186 a full scan\'s rows come in key order with no sort, whatever the planner\'s statistics', async () => {
    const schema = newSchema()
    const m = await mount(schema)
    // The statistics a bulk write leaves until autovacuum's next ANALYZE: none.
    await sql(database(), `ALTER TABLE ${table(schema, 'logbook_events')} SET (autovacuum_enabled = false)`)
    const events: SessionEvent[] = []
    for (let i = 0; i < 500; i++) events.push(...turn(i * 6, i + 1, 1_700_000_001_000 + i * 100))
    await m.store('s1', events)
    const store = new PgStore({ connectionString: database(), schema, poolSize: 1, statementTimeoutMs: 0, connectTimeoutMs: 5000, ssl: false })
    try {
      const explain = async (read: (fn: (client: Client) => Promise<string>) => Promise<string>): Promise<string> =>
        read(async client => (await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${store.sql.selectCheckedBodies}`, ['s1'])).rows.map(row => row['QUERY PLAN']).join('\n'))
      // A plain transaction sorts the whole log after a bitmap scan; the read snapshot reads it in key order.
      expect(await explain(fn => store.transaction(fn))).toMatch(/Sort/)
      const plan = await explain(fn => store.snapshot(fn))
      expect(plan).toMatch(/^Index Scan using logbook_events_pkey/)
      expect(plan).not.toMatch(/Sort/)
    } finally {
      await store.end()
    }
    expect(await m.persistence.readFrom('s1', 0)).toEqual(events)
  })

  it('P-106 a column that disagrees with its intact body (checksum matching) is SESSION_CORRUPT naming the row on every read path; nothing is rewritten', async () => {
    const cases: [string, string, number, string][] = [
      ['type', `type = 'step/end'`, 7, 'body type step/start differs from type column step/end'],
      ['time', 'time = time + 1', 7, 'body time 1700000001010 differs from time column 1700000001011'],
      ['last_seq', 'last_seq = 9', 8, 'body last seq 10 differs from last_seq column 9'],
      ['kind', `kind = 'reasoning-chunks'`, 8, 'body kind text-chunks differs from kind column reasoning-chunks'],
    ]
    for (const [column, change, seq, reason] of cases) {
      const schema = newSchema()
      const m = await mount(schema)
      await m.store('s1', [...turn(0, 1), ...turn(6, 2)])
      await sql(database(), `UPDATE ${table(schema, 'logbook_events')} SET ${change} WHERE session_id = 's1' AND seq = ${seq}`)
      const before = await sql(database(), rowsOf(schema))
      for (const attempt of [m.persistence.open('s1', 'read'), m.persistence.open('s1', 'write'), m.persistence.inspect('s1')]) {
        const error = await rejection(attempt)
        expect(error.code, column).toBe('SESSION_CORRUPT')
        expect(error.message, column).toBe(`session "s1": corrupt log: row at seq ${seq}: ${reason} at seq ${seq}`)
        expect(error.seq, column).toBe(seq)
      }
      expect(await sql(database(), rowsOf(schema)), column).toEqual(before)
    }
  })
})

describe('connection faults and config', () => {
  it('P-121 ECONNREFUSED at boot fails the start with one line naming the server, without the password', async () => {
    const port = await freePort()
    const error = await bootError({ connectionString: `postgresql://me:secret@127.0.0.1:${port}/db` })
    expect(error.code).toBe('STORE_IO')
    expect(error.message).toBe(`store postgresql://me@127.0.0.1:${port}/db (schema logbook): connection failed: connect ECONNREFUSED 127.0.0.1:${port} (ECONNREFUSED)`)
    expect(error.message).not.toContain('secret')
  })

  it('P-121 a bad config row fails the boot with a ValidationError naming the field', async () => {
    for (const [config, field] of [[{}, 'connectionString'], [{ connectionString: database(), schema: 'Bad-Name' }, 'schema'], [{ connectionString: database(), poolSize: 0 }, 'poolSize']] as const) {
      const error = await bootError(config)
      expect(error.name).toMatch(/ValidationError/)
      expect(error.message).toContain(field)
    }
  })

  it('P-122 a statement timeout is STORE_IO with reason statement-timeout; the append is retried and stored once', async () => {
    const schema = newSchema()
    const m = await mount(schema, { statementTimeoutMs: 200 })
    const handle = await m.persistence.create({ version: 1, id: 's1', createdAt: 1, cwd: '/w' } as never)
    await handle.append(turn(0, 1))
    await withClient(database(), async (blocker) => {
      await blocker.query('BEGIN')
      await blocker.query(`SELECT 1 FROM ${table(schema, 'logbook_sessions')} WHERE id = 's1' FOR UPDATE`)
      const error = await rejection(handle.append(turn(6, 2)))
      expect(error.code).toBe('STORE_IO')
      expect(error.details).toMatchObject({ reason: 'statement-timeout', code: '57014' })
      expect(error.message).toMatch(/statement timeout after 200 ms/)
      await blocker.query('ROLLBACK')
    })
    await handle.append(turn(6, 2))
    await handle.close()
    expect((await m.persistence.readFrom('s1', 0)).length).toBe(12)
  })

  it('P-122 a connection dropped mid-append that did not commit is a retryable STORE_IO; the retry stores the batch once', async () => {
    const schema = newSchema()
    const m = await mount(schema)
    const handle = await m.persistence.create({ version: 1, id: 's1', createdAt: 1, cwd: '/w' } as never)
    await handle.append(turn(0, 1))
    await withClient(database(), async (blocker) => {
      await blocker.query('BEGIN')
      await blocker.query(`SELECT 1 FROM ${table(schema, 'logbook_sessions')} WHERE id = 's1' FOR UPDATE`)
      const pending = rejection(handle.append(turn(6, 2)))
      let victim: number | undefined
      for (let i = 0; i < 500 && victim === undefined; i++) {
        const rows = (await blocker.query(`SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database() AND application_name = $1`, [applicationName()])).rows as { pid: number }[]
        victim = rows[0]?.pid
        if (victim === undefined) await new Promise(resolve => setTimeout(resolve, 10))
      }
      expect(victim).toBeTypeOf('number')
      await blocker.query('SELECT pg_terminate_backend($1)', [victim])
      const error = await pending
      expect(error.code).toBe('STORE_IO')
      expect(error.message).toBe('session "s1": the connection was lost during an append, which did not commit; it is retried')
      await blocker.query('ROLLBACK')
    })
    const committed = await handle.append(turn(6, 2))
    expect(committed.nextSeq).toBe(12)
    await handle.close()
    expect((await m.persistence.readFrom('s1', 0)).map(e => e.seq)).toEqual(Array.from({ length: 12 }, (_, i) => i))
  })
})

describe('revision', () => {
  it('P-185 revision() is the revision a scan reports, from the session row; it follows appends and a delete', async () => {
    const { backend, signal } = await rawBackend(30_000)
    try {
      expect(await backend.revision('s1', signal)).toBeUndefined()
      const token = await backend.lock('s1', freshOwner(), signal)
      const first = await backend.materialize(token, header('s1'), encodeBatch(turn(0), true), signal)
      expect(await backend.revision('s1', signal)).toBe(first.revision)
      const second = await backend.append(token, first, encodeBatch(turn(6, 2), true), signal)
      expect(await backend.revision('s1', signal)).toBe(second.revision)
      expect((await backend.scan('s1', {}, signal))!.revision).toBe(second.revision)
      await backend.remove(token, second.revision, signal)
      expect(await backend.revision('s1', signal)).toBeUndefined()
      await backend.unlock(token, signal)
    } finally {
      await backend.close()
    }
  })
})

describe('lease renewal', () => {
  it('P-123 [ft] a held lease is renewed every third of its duration by the server clock, and no longer once released', async () => {
    const { backend, signal, schema } = await rawBackend(60_000)
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] })
    try {
      const token = await backend.lock('s1', freshOwner(), signal)
      const expiry = async (): Promise<number> =>
        (await sql<{ ms: number }>(database(), `SELECT (extract(epoch FROM expires_at - now()) * 1000)::float8 AS ms FROM ${table(schema, 'logbook_leases')}`))[0]!.ms
      await sql(database(), `UPDATE ${table(schema, 'logbook_leases')} SET expires_at = now() + interval '5 seconds'`)
      expect(await expiry()).toBeLessThan(6000)
      vi.advanceTimersByTime(19_999)
      expect(await expiry()).toBeLessThan(6000)
      vi.advanceTimersByTime(1)
      await vi.waitFor(async () => expect(await expiry()).toBeGreaterThan(50_000), { interval: 20, timeout: 5000 })
      await backend.unlock(token, signal)
      expect(backend.isRenewing(token)).toBe(false)
      expect(await sql(database(), `SELECT 1 FROM ${table(schema, 'logbook_leases')}`)).toEqual([])
    } finally {
      vi.useRealTimers()
      await backend.close()
    }
  })
})
