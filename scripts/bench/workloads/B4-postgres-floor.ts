/**
 * B4 and B5 for PostgreSQL (see B4-common.ts for the workload, the per-flush median and the CPU figure). B4's raw
 * floor: the same rows — the shared codec's records of each flushed segment, with their checksums, in a table shaped
 * like `logbook_events` — inserted with plain `pg` as one multi-row `INSERT` per flush, each its own commit (what one
 * durable flush cannot do with less); the floor adds the in-memory run's time flush by flush, as for the files. The
 * CPU figure counts this process only (the server's CPU is another process's). B5: the
 * bytes the session's rows take in the database (`pg_total_relation_size` of the session, event and lease tables:
 * heap, TOAST and indexes) per event.
 */
import { crc32 } from 'node:zlib'
import type { SessionEvent } from '@logbook/session'
import { encodeBatch } from '@logbook/session-persistence'
import { collectGarbage, report } from '../harness.ts'
import { tempStore } from './persistence-store.ts'
import { cpuSince } from '../harness.ts'
import { b4Figures, writeInMemory, writeW } from './B4-common.ts'
import { BENCH_SCHEMA, benchUrl, pgClient, withBenchDatabase } from './postgres-server.ts'

/** The raw floor: one plain multi-row INSERT (one commit) per flushed segment, timed per flush. */
async function pgFloor(flushedAt: readonly number[], events: readonly SessionEvent[]): Promise<{ ms: number; cpuMicros: number; intervals: number[] }> {
  const segments: unknown[][] = []
  let from = 0
  for (const to of flushedAt) {
    const values: unknown[] = ['w']
    for (const r of encodeBatch(events.slice(from, to), true)) values.push(r.seq, r.lastSeq, r.kind, r.type, r.time, r.text, crc32(r.text))
    segments.push(values)
    from = to
  }
  const client = await pgClient(benchUrl())
  try {
    await client.query('CREATE TABLE floor_events (session_id text COLLATE "C" NOT NULL, seq bigint NOT NULL, last_seq bigint NOT NULL, kind text NOT NULL, type text NOT NULL, time bigint NOT NULL, body text NOT NULL, crc bigint NOT NULL, PRIMARY KEY (session_id, seq))')
    const texts = segments.map((values) => {
      const rows: string[] = []
      for (let i = 0; (i * 7) + 1 < values.length; i++) {
        const b = 2 + i * 7
        rows.push(`($1, $${b}, $${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5}, $${b + 6})`)
      }
      return `INSERT INTO floor_events (session_id, seq, last_seq, kind, type, time, body, crc) VALUES ${rows.join(', ')}`
    })
    collectGarbage()
    const cpu = process.cpuUsage()
    const start = performance.now()
    const intervals: number[] = []
    let last = start
    for (let i = 0; i < segments.length; i++) {
      await client.query(texts[i]!, segments[i])
      const now = performance.now()
      intervals.push(now - last)
      last = now
    }
    return { ms: performance.now() - start, cpuMicros: cpuSince(cpu), intervals }
  } finally {
    await client.end()
  }
}

/** Bytes of the bench schema's session, event and lease tables (heap, TOAST, indexes). */
async function storedBytes(): Promise<number> {
  const client = await pgClient(benchUrl())
  try {
    const tables = ['logbook_sessions', 'logbook_events', 'logbook_leases'].map(t => `pg_total_relation_size('"${BENCH_SCHEMA}".${t}')`)
    return Number((await client.query<{ bytes: string }>(`SELECT (${tables.join(' + ')})::text AS bytes`)).rows[0]!.bytes)
  } finally {
    await client.end()
  }
}

/** B4-postgres: W written through the real plugins with the checkpoint flushes, against the plain-`pg` floor. */
export async function runB4Postgres(): Promise<void> {
  const fixture = tempStore('b4-postgres')
  try {
    await withBenchDatabase(async () => {
      const memory = await writeInMemory()
      const run = await writeW('postgres', fixture.dir, true)
      const raw = await pgFloor(run.flushedAt, run.events)
      const { figure, floor, extra } = b4Figures(run, raw, memory)
      report({
        workload: 'B4-postgres',
        figure,
        floor,
        ratio: figure / floor,
        extra: {
          ...extra,
          'events/s': run.events.length / (run.ms / 1000),
          'bytes/event (B5)': (await storedBytes()) / run.events.length,
        },
      })
    })
  } finally {
    fixture.remove()
  }
}

/** B5-postgres: bytes in the database per event after writing W as B4 does. */
export async function runB5Postgres(): Promise<void> {
  const fixture = tempStore('b5-postgres')
  try {
    await withBenchDatabase(async () => {
      const run = await writeW('postgres', fixture.dir, false)
      const bytes = await storedBytes()
      report({ workload: 'B5-postgres', figure: bytes / run.events.length, floor: null, ratio: null, extra: { 'stored bytes': bytes, events: run.events.length } })
    })
  } finally {
    fixture.remove()
  }
}
