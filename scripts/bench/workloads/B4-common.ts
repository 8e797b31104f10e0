/**
 * B4: write W durably through the real plugins (`@logbook/session` + a backend) as a live session, with 3 awaited
 * flushes per turn at the checkpoint points (after each `step/start`: before the model request; after `tool/call`:
 * before the tool body) and one final flush. Floor: the same bytes (the shared codec's records of each flushed
 * segment) written to a raw file descriptor with one `fdatasync` per flush, waited for the way the backend waits for
 * its own syncs: JSONL awaits `fs.fdatasync` on the libuv pool (a server's event loop keeps running while the device
 * syncs), SQLite commits block inside SQLite's fsync. Both floors are measured and reported, and so is a reference
 * that is not a target: the same appends and flush calls with no persistence (the session core's share of the
 * figure). B5: bytes on disk per event afterwards.
 */

import { closeSync, existsSync, fdatasync, fdatasyncSync, openSync, readdirSync, statSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { Context, type Fiber } from '@deepseek-ai/cordis'
import SessionStore, { SessionId, type Session, type SessionEvent } from '@logbook/session'
import { encodeBatch } from '@logbook/session-persistence'
import { collectGarbage, report } from '../harness.ts'
import { wAppendList } from '../session-w.ts'
import { mount, storePath, tempStore, type BackendKind } from './persistence-store.ts'

type LooseAppend = (type: string, data: unknown, opts?: unknown) => unknown

/**
 * Appends W to `session` (each append seeing W's virtual time from `Date.now()`), awaiting `sessions.flush` after each
 * `step/start` and `tool/call` and once at the end; returns the elapsed ms and `session.seq` after each flush.
 */
async function timedWrite(sessions: SessionStore, session: Session): Promise<{ ms: number; flushedAt: number[] }> {
  const inputs = wAppendList()
  const append = session.append.bind(session) as LooseAppend
  const flushedAt: number[] = []
  const realNow = Date.now
  let now = 0
  collectGarbage()
  const start = performance.now()
  Date.now = () => now
  try {
    for (const input of inputs) {
      now = input.time
      if (input.opts) append(input.type, input.data, input.opts)
      else append(input.type, input.data)
      if (input.type === 'step/start' || input.type === 'tool/call') {
        await sessions.flush(session)
        flushedAt.push(session.seq)
      }
    }
    await sessions.flush(session)
    flushedAt.push(session.seq)
  } finally {
    Date.now = realNow
  }
  return { ms: performance.now() - start, flushedAt }
}

/** Writes W as a live session with the checkpoint flushes; returns the elapsed time, flush boundaries and events. */
export async function writeW(kind: BackendKind, dir: string, durable: boolean): Promise<{ ms: number; flushedAt: number[]; events: readonly SessionEvent[] }> {
  const m = await mount(kind, dir, { durable })
  const session = m.sessions.create(SessionId('w'), { meta: { cwd: '/bench/w' } })
  const { ms, flushedAt } = await timedWrite(m.sessions, session)
  const events = session.events
  await m.stop()
  return { ms, flushedAt, events }
}

/**
 * B4's in-memory reference (not a target): the same appends and flush calls on a session with no persistence plugin
 * (a flush with no listener settles at once), i.e. what the session core alone costs of the figure.
 */
export async function writeInMemory(): Promise<number> {
  const app = new Context()
  const store: Fiber = app.plugin(SessionStore)
  await store
  const sessions = app.get('sessions') as SessionStore
  const { ms } = await timedWrite(sessions, sessions.create(SessionId('w'), { meta: { cwd: '/bench/w' } }))
  await store.dispose()
  return ms
}

/** The file-backed backends, whose floor is a raw descriptor (PostgreSQL's is in B4-postgres-floor.ts). */
type FileBackend = Exclude<BackendKind, 'postgres'>

/** How a floor waits for each `fdatasync`: blocking (`fdatasyncSync`) or awaiting `fs.fdatasync` on the libuv pool. */
type SyncPrimitive = 'blocking' | 'awaited'

/** The primitive each backend's durable commit uses, hence the floor its ratio is taken against. */
const BACKEND_PRIMITIVE: Readonly<Record<FileBackend, SyncPrimitive>> = { jsonl: 'awaited', sqlite: 'blocking' }

const awaitedDatasync = (fd: number): Promise<void> =>
  new Promise((resolve, reject) => fdatasync(fd, error => (error ? reject(error) : resolve())))

/** The floor: each flushed segment's record bytes written to a raw fd, one `fdatasync` per flush. */
async function rawFloor(
  dir: string,
  flushedAt: readonly number[],
  events: readonly SessionEvent[],
  primitive: SyncPrimitive,
): Promise<{ ms: number; bytes: number }> {
  const segments: Buffer[] = []
  let from = 0
  for (const to of flushedAt) {
    let text = ''
    for (const record of encodeBatch(events.slice(from, to), true)) text += `${record.text}\n`
    segments.push(Buffer.from(text, 'utf8'))
    from = to
  }
  const fd = openSync(join(dir, `floor-${primitive}.jsonl`), 'w', 0o600)
  collectGarbage()
  const start = performance.now()
  let bytes = 0
  for (const segment of segments) {
    let done = 0
    while (done < segment.length) done += writeSync(fd, segment, done, segment.length - done)
    if (primitive === 'blocking') fdatasyncSync(fd)
    else await awaitedDatasync(fd)
    bytes += segment.length
  }
  const ms = performance.now() - start
  closeSync(fd)
  return { ms, bytes }
}

/** Bytes the backend keeps on disk under `dir` (JSONL: every file under the root; SQLite: database, WAL, SHM). */
function storedBytes(kind: FileBackend, dir: string): number {
  const path = storePath(kind, dir)
  if (kind === 'sqlite') return [path, `${path}-wal`, `${path}-shm`].reduce((sum, p) => sum + (existsSync(p) ? statSync(p).size : 0), 0)
  let total = 0
  const walk = (d: string): void => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(join(d, entry.name))
      else if (entry.isFile()) total += statSync(join(d, entry.name)).size
    }
  }
  walk(path)
  return total
}

/**
 * Runs B4 for `kind` and reports the row `B4-<kind>` (figure: elapsed ms; floor: raw fd with one fdatasync per flush,
 * waited for with the backend's primitive; the other primitive's floor and ratio are extra figures).
 */
export async function runB4(kind: FileBackend): Promise<void> {
  const fixture = tempStore(`b4-${kind}`)
  try {
    const run = await writeW(kind, fixture.dir, true)
    const blocking = await rawFloor(fixture.dir, run.flushedAt, run.events, 'blocking')
    const awaited = await rawFloor(fixture.dir, run.flushedAt, run.events, 'awaited')
    const floor = BACKEND_PRIMITIVE[kind] === 'blocking' ? blocking : awaited
    const inMemory = await writeInMemory()
    report({
      workload: `B4-${kind}`,
      figure: run.ms,
      floor: floor.ms,
      ratio: run.ms / floor.ms,
      extra: {
        flushes: run.flushedAt.length,
        'events/s': run.events.length / (run.ms / 1000),
        'bytes/event (B5)': storedBytes(kind, fixture.dir) / run.events.length,
        'floor fdatasyncSync ms': blocking.ms,
        'floor awaited fdatasync ms': awaited.ms,
        'ratio to fdatasyncSync floor': run.ms / blocking.ms,
        'in-memory reference ms': inMemory,
        'in-memory reference / floor': inMemory / floor.ms,
      },
    })
  } finally {
    fixture.remove()
  }
}

/**
 * Runs B5 for `kind` and reports the row `B5-<kind>` (bytes on disk per event after writing W as B4 does). The
 * write is not durable here: fsync does not change the bytes, and B4 times the durable write.
 */
export async function runB5(kind: FileBackend): Promise<void> {
  const fixture = tempStore(`b5-${kind}`)
  try {
    const run = await writeW(kind, fixture.dir, false)
    const bytes = storedBytes(kind, fixture.dir)
    report({ workload: `B5-${kind}`, figure: bytes / run.events.length, floor: null, ratio: null, extra: { 'stored bytes': bytes, events: run.events.length } })
  } finally {
    fixture.remove()
  }
}
