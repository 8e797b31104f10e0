/**
 * Shared by the persistence workloads (B2, B4, B5, B9, B12, M, S2): mounting a backend on a temp dir, storing W quickly,
 * the resume sequence of 02 §4.3, and running a workload script in a fresh child process (`runChild`; `childStep` for
 * one measurement step of `persistence-child.ts`).
 * Fixtures live in the OS temp dir, never in the repo; every helper that creates one also removes it.
 */

import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Context, type Fiber } from '@deepseek-ai/cordis'
import SessionStore, { openTurnClosers, SessionId, type Session, type SessionEvent, type SessionHeader } from '@logbook/session'
import type { SessionPersistence } from '@logbook/session-persistence'
import { W_EVENTS_PER_TURN, wEvents } from '../session-w.ts'
import { BENCH_SCHEMA, benchUrl } from './postgres-server.ts'

/** The durable backends the workloads compare. */
export type BackendKind = 'jsonl' | 'sqlite' | 'postgres'

/** Parses a backend name from argv. */
export function backendKind(value: string | undefined): BackendKind {
  if (value === 'jsonl' || value === 'sqlite' || value === 'postgres') return value
  throw new Error(`expected backend jsonl, sqlite or postgres, got ${value}`)
}

/** A temp dir for one fixture; `remove()` deletes it. */
export function tempStore(label: string): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), `logbook-bench-${label}-`))
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) }
}

/** Where a backend keeps its data under `dir` (JSONL root, SQLite file; PostgreSQL: the bench database's URL). */
export function storePath(kind: BackendKind, dir: string): string {
  if (kind === 'postgres') return benchUrl()
  return kind === 'jsonl' ? join(dir, 'jsonl') : join(dir, 'logbook.sqlite')
}

/**
 * One app: `sessions` and a backend. `durable: false` selects JSONL `none` / SQLite `synchronous: normal`
 * (PostgreSQL commits are always durable).
 */
export interface Mounted {
  readonly app: Context
  readonly sessions: SessionStore
  readonly persistence: SessionPersistence
  stop(): Promise<void>
}

/** Mounts `@logbook/session` and the backend of `kind` on `dir`. */
export async function mount(kind: BackendKind, dir: string, options: { durable: boolean; config?: Record<string, unknown> }): Promise<Mounted> {
  const app = new Context()
  const store: Fiber = app.plugin(SessionStore)
  await store
  const config: Record<string, unknown> = kind === 'jsonl'
    ? { root: storePath(kind, dir), durability: options.durable ? 'fsync' : 'none', ...options.config }
    : kind === 'sqlite'
      ? { path: storePath(kind, dir), synchronous: options.durable ? 'full' : 'normal', ...options.config }
      : { connectionString: storePath(kind, dir), schema: BENCH_SCHEMA, ...options.config }
  // Imported on demand, so a JSONL process never loads the SQLite native module (M measures RSS).
  const plugin = kind === 'jsonl'
    ? (await import('@logbook/session-persistence-jsonl')).default
    : kind === 'sqlite'
      ? (await import('@logbook/session-persistence-sqlite')).default
      : (await import('@logbook/session-persistence-postgres')).default
  const backend: Fiber = app.plugin(plugin as never, config as never)
  await backend
  return {
    app,
    sessions: app.get('sessions') as SessionStore,
    persistence: app.get('sessionPersistence') as SessionPersistence,
    async stop() {
      await backend.dispose()
      await store.dispose()
    },
  }
}

/** The header every stored bench session carries. */
export function benchHeader(id: string, createdAt: number): SessionHeader {
  return { version: 1, id: SessionId(id), createdAt, cwd: '/bench/w' }
}

/** Stores `events` as session `id` through a write handle, one append per W turn (so chunk runs pack as live). */
export async function storeEvents(persistence: SessionPersistence, id: string, events: readonly SessionEvent[]): Promise<void> {
  const handle = await persistence.create(benchHeader(id, events[0]?.time ?? 0))
  try {
    for (let i = 0; i < events.length; i += W_EVENTS_PER_TURN) await handle.append(events.slice(i, i + W_EVENTS_PER_TURN))
  } finally {
    await handle.close()
  }
}

/**
 * Stores `count` sessions of one W turn each (B9, B12, S2): ids `s0000`, `s0001`, … (zero-padded so the ids sort as
 * the sessions were made), seed `1000 + i`, start times an hour apart. One after another: storing 16 at a time was
 * no faster (the time is the backends' per-session create and close, not W's generation); 10,000 take tens of seconds.
 */
export async function storeSessions(persistence: SessionPersistence, count: number): Promise<void> {
  const width = Math.max(4, String(count - 1).length)
  for (let i = 0; i < count; i++) {
    const events = wEvents({ turns: 1, seed: 1000 + i, start: 1_700_000_000_000 + i * 3_600_000 })
    await storeEvents(persistence, `s${String(i).padStart(width, '0')}`, events)
  }
}

/** Store the events of `stream` as session `id`, one append per W turn, never holding more than one turn. */
export async function storeEventStream(persistence: SessionPersistence, id: string, stream: Iterable<SessionEvent>): Promise<number> {
  let handle: Awaited<ReturnType<SessionPersistence['create']>> | undefined
  let batch: SessionEvent[] = []
  let count = 0
  try {
    for (const event of stream) {
      handle ??= await persistence.create(benchHeader(id, event.time))
      batch.push(event)
      count++
      if (batch.length === W_EVENTS_PER_TURN) {
        await handle.append(batch)
        batch = []
      }
    }
    if (batch.length > 0) await handle!.append(batch)
  } finally {
    await handle?.close()
  }
  return count
}

/**
 * Resume as chapter 03 §5.1 runs it (02 §4.3 steps 2–6): open for write, read, append closers, prepare, hand off,
 * enter, announce; then derive the model's messages. Returns the live session.
 */
export async function resume(m: Mounted, id: string): Promise<{ session: Session; messages: number }> {
  const handle = await m.persistence.open(id, 'write')
  const events = await handle.read(0)
  const closers = openTurnClosers(events, { kind: 'interrupted' })
  if (closers.length > 0) await handle.append(closers)
  const session = m.sessions.prepare(SessionId(id), {
    seed: closers.length > 0 ? [...events, ...closers] : events,
    meta: handle.header,
    inheritedEventCount: handle.inheritedEventCount,
    eventState: handle.eventState,
  })
  handle.handOff()
  m.sessions.enter(session)
  m.sessions.announce(session)
  return { session, messages: session.deriveMessages().length }
}

const here = dirname(fileURLToPath(import.meta.url))
const repoRoot = join(here, '..', '..', '..')

/**
 * Runs the workload script `file` (relative to `workloads/`) with `args` in a fresh process, as `run.ts` runs
 * workloads (source conditions, tsx, `--expose-gc`, cwd the repo root), and returns its stdout's last line.
 * @throws Error `<failure> failed (exit <status>)`, after copying the child's stdout and stderr to stderr, when the
 * child exits non-zero or prints nothing.
 */
export function runChild(file: string, args: readonly string[], failure: string): string {
  const child = spawnSync(process.execPath, ['--conditions=source', '--import', 'tsx', '--expose-gc', join(here, file), ...args], {
    cwd: repoRoot,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  })
  const line = child.stdout?.trim().split('\n').at(-1)
  if (child.status !== 0 || !line) {
    process.stderr.write(child.stdout ?? '')
    process.stderr.write(child.stderr ?? '')
    throw new Error(`${failure} failed (exit ${child.status ?? child.signal})`)
  }
  return line
}

/** Runs `persistence-child.ts <step> …args` in a fresh process and returns the JSON it printed as its last line. */
export function childStep<T>(step: string, ...args: string[]): T {
  return JSON.parse(runChild('persistence-child.ts', [step, ...args], `bench child step ${step}`)) as T
}
