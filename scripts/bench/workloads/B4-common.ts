/**
 * B4: write W durably through the real plugins (`@logbook/session` + a backend) as a live session, with 3 awaited
 * flushes per turn at the checkpoint points (after each `step/start`: before the model request; after `tool/call`:
 * before the tool body) and one final flush: 3,001 flushes.
 *
 * The judged figure is the **per-flush median**: for each flush, the time from the return of the previous flush (the
 * start, for the first) to the return of this one — the appends since the previous flush plus the flush itself —
 * and the median over every flush of the run. The **floor** is the same quantity for the unavoidable work, flush by
 * flush: the time the raw write of that flush's bytes (the shared codec's records of the segment) plus one
 * `fdatasync` take on a raw descriptor, **plus** the time the same appends and flush calls take in the same run
 * with no persistence plugin (the in-memory run: what the session core alone costs); the floor figure is the median
 * over flushes of that sum. The raw descriptor waits for its sync the way the backend does: JSONL awaits
 * `fs.fdatasync` on the libuv pool (a server's event loop keeps running while the device syncs), SQLite commits
 * block inside SQLite's fsync; the other primitive's floor is reported beside it. The raw bytes are the JSONL
 * lines the backend writes (checksum prefix included).
 *
 * Two references beside the floor, not targets: the floor's parts **interleaved** in one loop (the in-memory appends,
 * and at each flush the raw write and sync of its bytes), and the same with each flush also **encoding** its records
 * with the shared codec — on a shared 2-core machine the work done right after a sync costs more than the same work
 * in a tight loop, which the floor's separately measured parts cannot show.
 *
 * **Plugin CPU per flush**: the CPU time of the whole process (`process.cpuUsage()`, user + system, every thread:
 * main, libuv pool, GC, compiler) during the durable run, minus that of the raw-descriptor run and of the in-memory
 * run, divided by the number of flushes — the persistence plugin's and the backend's own CPU per flush. The
 * in-memory run goes first, so the session core's cold start is billed to it, not to the plugin.
 *
 * B5: bytes on disk per event afterwards.
 */

import { closeSync, existsSync, fdatasync, fdatasyncSync, openSync, readdirSync, statSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { Context, type Fiber } from '@deepseek-ai/cordis'
import SessionStore, { SessionId, type Session, type SessionEvent } from '@logbook/session'
import { encodeBatch } from '@logbook/session-persistence'
import { collectGarbage, cpuSince, report } from '../harness.ts'
import { wAppendList } from '../session-w.ts'
import { mount, storePath, tempStore, type BackendKind } from './persistence-store.ts'

type LooseAppend = (type: string, data: unknown, opts?: unknown) => unknown

/** One timed write of W: elapsed ms, CPU µs, `session.seq` after each flush and each flush's interval in ms. */
export interface TimedRun {
  readonly ms: number
  readonly cpuMicros: number
  readonly flushedAt: readonly number[]
  /** Per flush: ms from the previous flush's return (the start, for the first) to this flush's return. */
  readonly intervals: readonly number[]
}

/** The median of `values` (the mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/** Per flush, the floor's quantity: `raw[i] + memory[i]`. @throws when the runs flushed a different number of times. */
export function floorIntervals(raw: readonly number[], memory: readonly number[]): number[] {
  if (raw.length !== memory.length) throw new Error(`B4: ${raw.length} raw flushes but ${memory.length} in-memory flushes`)
  return raw.map((ms, i) => ms + memory[i]!)
}

/**
 * Appends W to `session` (each append seeing W's virtual time from `Date.now()`), awaiting `flush()` (normally
 * `sessions.flush`) after each `step/start` and `tool/call` and once at the end.
 */
async function timedWrite(session: Session, flush: () => Promise<unknown>): Promise<TimedRun> {
  const inputs = wAppendList()
  const append = session.append.bind(session) as LooseAppend
  const flushedAt: number[] = []
  const returns: number[] = []
  const realNow = Date.now
  let now = 0
  collectGarbage()
  const cpu = process.cpuUsage()
  const start = performance.now()
  Date.now = () => now
  try {
    for (const input of inputs) {
      now = input.time
      if (input.opts) append(input.type, input.data, input.opts)
      else append(input.type, input.data)
      if (input.type === 'step/start' || input.type === 'tool/call') {
        await flush()
        returns.push(performance.now())
        flushedAt.push(session.seq)
      }
    }
    await flush()
    returns.push(performance.now())
    flushedAt.push(session.seq)
  } finally {
    Date.now = realNow
  }
  const ms = performance.now() - start
  const cpuMicros = cpuSince(cpu)
  return { ms, cpuMicros, flushedAt, intervals: returns.map((t, i) => t - (i === 0 ? start : returns[i - 1]!)) }
}

/** Writes W as a live session with the checkpoint flushes; returns the timed run and the events. */
export async function writeW(kind: BackendKind, dir: string, durable: boolean): Promise<TimedRun & { events: readonly SessionEvent[] }> {
  const m = await mount(kind, dir, { durable })
  const session = m.sessions.create(SessionId('w'), { meta: { cwd: '/bench/w' } })
  const run = await timedWrite(session, () => m.sessions.flush(session))
  const events = session.events
  await m.stop()
  return { ...run, events }
}

/**
 * B4's in-memory run (part of the floor): the same appends and flush calls on a session with no persistence plugin
 * (a flush with no listener settles at once), i.e. what the session core alone costs.
 */
export async function writeInMemory(): Promise<TimedRun> {
  const app = new Context()
  const store: Fiber = app.plugin(SessionStore)
  await store
  const sessions = app.get('sessions') as SessionStore
  const session = sessions.create(SessionId('w'), { meta: { cwd: '/bench/w' } })
  const run = await timedWrite(session, () => sessions.flush(session))
  await store.dispose()
  return run
}

/**
 * A reference beside the floor (not a target): the in-memory appends with, at each flush, the raw write of that
 * flush's bytes and one `fdatasync` (`primitive`) in the same loop — the floor's two parts interleaved as the durable
 * run interleaves them, so whatever one costs the other on this machine (work right after a sync runs on a core
 * that slept) shows. With `encode`, each flush also encodes and frames its records as the backend's codec does.
 */
async function writeInterleaved(dir: string, segments: readonly Buffer[], primitive: SyncPrimitive, encode: boolean): Promise<TimedRun> {
  const app = new Context()
  const store: Fiber = app.plugin(SessionStore)
  await store
  const sessions = app.get('sessions') as SessionStore
  const session = sessions.create(SessionId('w'), { meta: { cwd: '/bench/w' } })
  const fd = openSync(join(dir, `interleaved-${encode ? 'encode' : 'raw'}.jsonl`), 'w', 0o600)
  let k = 0
  let from = 0
  const flush = async (): Promise<void> => {
    let segment = segments[k++]!
    if (encode) {
      segment = Buffer.from(frameRecords(encodeBatch(session.events.slice(from, session.seq), true)), 'utf8')
      from = session.seq
    }
    writeFully(fd, segment)
    if (primitive === 'blocking') fdatasyncSync(fd)
    else await awaitedDatasync(fd)
  }
  try {
    return await timedWrite(session, flush)
  } finally {
    closeSync(fd)
    await store.dispose()
  }
}

/** The JSONL lines of `records` (checksum prefix, text, newline), as the backend frames them. */
function frameRecords(records: readonly { text: string; crc: number }[]): string {
  let text = ''
  for (const record of records) text += `${(record.crc >>> 0).toString(16).padStart(8, '0')} ${record.text}\n`
  return text
}

function writeFully(fd: number, segment: Buffer): void {
  let done = 0
  while (done < segment.length) done += writeSync(fd, segment, done, segment.length - done)
}

/** The file-backed backends, whose floor is a raw descriptor (PostgreSQL's is in B4-postgres-floor.ts). */
type FileBackend = Exclude<BackendKind, 'postgres'>

/** How a floor waits for each `fdatasync`: blocking (`fdatasyncSync`) or awaiting `fs.fdatasync` on the libuv pool. */
type SyncPrimitive = 'blocking' | 'awaited'

/** The primitive each backend's durable commit uses, hence the floor its ratio is taken against. */
const BACKEND_PRIMITIVE: Readonly<Record<FileBackend, SyncPrimitive>> = { jsonl: 'awaited', sqlite: 'blocking' }

const awaitedDatasync = (fd: number): Promise<void> =>
  new Promise((resolve, reject) => fdatasync(fd, error => (error ? reject(error) : resolve())))

/** Each flush's bytes: the backend codec's records of the events it made durable, framed as JSONL lines. */
function flushSegments(flushedAt: readonly number[], events: readonly SessionEvent[]): Buffer[] {
  const segments: Buffer[] = []
  let from = 0
  for (const to of flushedAt) {
    segments.push(Buffer.from(frameRecords(encodeBatch(events.slice(from, to), true)), 'utf8'))
    from = to
  }
  return segments
}

/** The raw floor of each flush: that flush's record bytes written to a raw fd, one `fdatasync`. */
async function rawFloor(
  dir: string,
  flushedAt: readonly number[],
  events: readonly SessionEvent[],
  primitive: SyncPrimitive,
): Promise<{ ms: number; cpuMicros: number; intervals: number[]; bytes: number }> {
  const segments = flushSegments(flushedAt, events)
  const fd = openSync(join(dir, `floor-${primitive}.jsonl`), 'w', 0o600)
  collectGarbage()
  const cpu = process.cpuUsage()
  const start = performance.now()
  const intervals: number[] = []
  let last = start
  let bytes = 0
  for (const segment of segments) {
    writeFully(fd, segment)
    if (primitive === 'blocking') fdatasyncSync(fd)
    else await awaitedDatasync(fd)
    const now = performance.now()
    intervals.push(now - last)
    last = now
    bytes += segment.length
  }
  const ms = performance.now() - start
  const cpuMicros = cpuSince(cpu)
  closeSync(fd)
  return { ms, cpuMicros, intervals, bytes }
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

/** The name of B4's second judged figure (see `table.ts`): the plugin's CPU per flush beyond the floor's, in µs. */
export const PLUGIN_CPU = 'plugin CPU µs/flush'

/** The figures every B4 row reports beside its headline: per-flush medians in µs, totals, CPU per flush. */
export function b4Figures(run: TimedRun, raw: { ms: number; cpuMicros: number; intervals: readonly number[] }, memory: TimedRun): {
  figure: number
  floor: number
  extra: Record<string, number>
} {
  const flushes = run.flushedAt.length
  const figure = median(run.intervals) * 1000
  const floor = median(floorIntervals(raw.intervals, memory.intervals)) * 1000
  return {
    figure,
    floor,
    extra: {
      [PLUGIN_CPU]: (run.cpuMicros - raw.cpuMicros - memory.cpuMicros) / flushes,
      'floor CPU µs/flush (raw + in-memory)': (raw.cpuMicros + memory.cpuMicros) / flushes,
      flushes,
      'total ms': run.ms,
      'floor total ms (raw + in-memory)': raw.ms + memory.ms,
      'raw floor per-flush median µs': median(raw.intervals) * 1000,
      'in-memory per-flush median µs': median(memory.intervals) * 1000,
      'in-memory total ms': memory.ms,
    },
  }
}

/**
 * Runs B4 for `kind` and reports the row `B4-<kind>` (figure: the durable run's per-flush median in µs; floor: the
 * per-flush median of raw write + fdatasync (the backend's primitive) + in-memory appends; extras: plugin CPU per
 * flush, the other primitive's floor, totals).
 */
export async function runB4(kind: FileBackend): Promise<void> {
  const fixture = tempStore(`b4-${kind}`)
  try {
    const memory = await writeInMemory()
    const run = await writeW(kind, fixture.dir, true)
    const blocking = await rawFloor(fixture.dir, run.flushedAt, run.events, 'blocking')
    const awaited = await rawFloor(fixture.dir, run.flushedAt, run.events, 'awaited')
    const [raw, other] = BACKEND_PRIMITIVE[kind] === 'blocking' ? [blocking, awaited] : [awaited, blocking]
    const { figure, floor, extra } = b4Figures(run, raw, memory)
    const otherFloor = median(floorIntervals(other.intervals, memory.intervals)) * 1000
    const segments = flushSegments(run.flushedAt, run.events)
    const interleaved = await writeInterleaved(fixture.dir, segments, BACKEND_PRIMITIVE[kind], false)
    const encoded = await writeInterleaved(fixture.dir, segments, BACKEND_PRIMITIVE[kind], true)
    report({
      workload: `B4-${kind}`,
      figure,
      floor,
      ratio: figure / floor,
      extra: {
        ...extra,
        'events/s': run.events.length / (run.ms / 1000),
        'bytes/event (B5)': storedBytes(kind, fixture.dir) / run.events.length,
        [`ratio to the ${BACKEND_PRIMITIVE[kind] === 'blocking' ? 'awaited fdatasync' : 'fdatasyncSync'} floor`]: figure / otherFloor,
        'interleaved reference per-flush median µs (appends + raw write + sync in one loop)': median(interleaved.intervals) * 1000,
        'interleaved + encode reference per-flush median µs': median(encoded.intervals) * 1000,
        'ratio to the interleaved + encode reference': figure / (median(encoded.intervals) * 1000),
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
