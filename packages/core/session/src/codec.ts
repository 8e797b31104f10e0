/**
 * The chunk-row storage codec (01 §10). Rows are storage records, never events: runs of at least MIN_CHUNK_RUN
 * one-token `assistant/chunk` events are packed into one row whose members decode back exactly (up to key order).
 */
import { ChunkRowError } from './errors.ts'
import { isObj, isSafeInt, type Obj } from './guards.ts'
import { PackedRun } from './packed-run.ts'
import type { CallId, SessionEvent } from './types.ts'

/** The slash-less tags of packed rows; no event type can equal one (event types always contain a `/`). */
export const CHUNK_ROW_TAGS = Object.freeze(['text-chunks', 'reasoning-chunks', 'tool-call-chunks'] as const)
/** A row tag. */
export type ChunkRowTag = (typeof CHUNK_ROW_TAGS)[number]
/** The shortest run `packChunkRuns` packs. */
export const MIN_CHUNK_RUN = 3

type RunBase = { readonly turn: number; readonly step: number; readonly index: number; readonly dt: readonly number[] }
/** One packed run of chunk events: members are `seq0 + i`, times `time0` plus the running sum of `dt`. */
export type ChunkRow =
  | { readonly type: 'text-chunks' | 'reasoning-chunks'; readonly seq0: number; readonly time0: number
    readonly data: RunBase & { readonly texts: readonly string[] } }
  | { readonly type: 'tool-call-chunks'; readonly seq0: number; readonly time0: number
    readonly data: RunBase & { readonly id: CallId; readonly name?: string; readonly args: readonly string[] } }
/** What a backend stores: an event, or a packed row. */
export type StorageRecord = SessionEvent | ChunkRow

const hasOwn = Object.hasOwn

/**
 * Own keys are exactly `required` plus any present among `optional` (order free), all enumerable. One pass: a key
 * outside the set fails at once, and a count of distinct members equal to the set's size means every one is there.
 */
function exactKeys(o: Obj, required: readonly string[], optional?: string): boolean {
  let n = 0
  for (const k in o) {
    if (!hasOwn(o, k)) continue
    if (k !== optional && !required.includes(k)) return false
    n++
  }
  return n === required.length + (optional !== undefined && hasOwn(o, optional) ? 1 : 0)
}

/** A packable chunk event, reduced to what a run compares and stores. */
interface Packable {
  readonly kind: ChunkRowTag; readonly seq: number; readonly time: number; readonly turn: number
  readonly step: number; readonly index: number; readonly piece: string
  // Always present (undefined when absent) so every Packable has one shape: a spread-built object was ~15x slower.
  readonly id: string | undefined; readonly name: string | undefined
}

/** Own enumerable keys of `o` are exactly `a, b, c` and `d` when given, in any order (the per-event checks of a pack). */
function hasOnly(o: Obj, a: string, b: string, c: string, d?: string): boolean {
  let n = 0
  for (const k in o) {
    if (!hasOwn(o, k)) continue
    if (k !== a && k !== b && k !== c && k !== d) return false
    n++
  }
  return n === (d === undefined ? 3 : 4)
}

/** The whitelist of 01 §10 "Packable"; anything else is passed through verbatim. */
function packable(r: unknown): Packable | undefined {
  if (!isObj(r) || r.type !== 'assistant/chunk' || !isSafeInt(r.seq) || r.seq < 0 || !isSafeInt(r.time)) return undefined
  if (!hasOnly(r, 'type', 'seq', 'time', 'data')) return undefined
  const d = r.data
  if (!isObj(d) || !hasOnly(d, 'turn', 'step', 'chunk')) return undefined
  const { turn, step, chunk: c } = d
  if (typeof turn !== 'number' || typeof step !== 'number' || !isObj(c) || typeof c.index !== 'number') return undefined
  const { seq, time } = r
  const index = c.index
  if (c.type === 'text-delta' || c.type === 'reasoning-delta') {
    if (typeof c.text !== 'string' || !hasOnly(c, 'type', 'index', 'text')) return undefined
    const kind = c.type === 'text-delta' ? 'text-chunks' : 'reasoning-chunks'
    return { kind, seq, time, turn, step, index, piece: c.text, id: undefined, name: undefined }
  }
  if (c.type !== 'tool-call-delta' || typeof c.id !== 'string' || typeof c.argumentsDelta !== 'string') return undefined
  if (!exactKeys(c, ['type', 'index', 'id', 'argumentsDelta'], 'name')) return undefined
  if (c.name !== undefined && typeof c.name !== 'string') return undefined
  return { kind: 'tool-call-chunks', seq, time, turn, step, index, piece: c.argumentsDelta, id: c.id, name: c.name }
}

function continues(prev: Packable, next: Packable): boolean {
  return next.seq === prev.seq + 1 && isSafeInt(next.time - prev.time) && next.kind === prev.kind &&
    Object.is(next.turn, prev.turn) && Object.is(next.step, prev.step) && Object.is(next.index, prev.index) &&
    next.id === prev.id && next.name === prev.name
}

function toRow(run: readonly Packable[]): ChunkRow {
  const first = run[0] as Packable
  const dt: number[] = []
  const pieces: string[] = []
  for (let i = 0; i < run.length; i++) {
    const m = run[i] as Packable
    if (i > 0) dt.push(m.time - (run[i - 1] as Packable).time)
    pieces.push(m.piece)
  }
  const { turn, step, index } = first
  if (first.kind !== 'tool-call-chunks') {
    return { type: first.kind, seq0: first.seq, time0: first.time, data: { turn, step, index, dt, texts: pieces } }
  }
  const id = first.id as CallId
  const data = first.name === undefined
    ? { turn, step, index, id, dt, args: pieces }
    : { turn, step, index, id, name: first.name, dt, args: pieces }
  return { type: 'tool-call-chunks', seq0: first.seq, time0: first.time, data }
}

/**
 * Packs every run of at least MIN_CHUNK_RUN packable chunk events into one row and passes everything else through
 * unchanged (the same objects), in order. Rows share the members' strings.
 */
export function packChunkRuns(records: readonly StorageRecord[]): StorageRecord[] {
  const out: StorageRecord[] = []
  let run: Packable[] = []
  let runStart = 0
  for (let i = 0; i <= records.length; i++) {
    const p = i < records.length ? packable(records[i]) : undefined
    if (p !== undefined && run.length > 0 && continues(run[run.length - 1] as Packable, p)) {
      run.push(p)
      continue
    }
    if (run.length >= MIN_CHUNK_RUN) out.push(toRow(run))
    else for (let k = 0; k < run.length; k++) out.push(records[runStart + k] as StorageRecord)
    run = []
    if (i === records.length) break
    if (p === undefined) {
      out.push(records[i] as StorageRecord)
    } else {
      runStart = i
      run.push(p)
    }
  }
  return out
}

const TAGS: ReadonlySet<string> = new Set(CHUNK_ROW_TAGS)
const ROW_KEYS = ['type', 'seq0', 'time0', 'data']
const TEXT_DATA_KEYS = ['turn', 'step', 'index', 'dt', 'texts']
const TOOL_DATA_KEYS = ['turn', 'step', 'index', 'id', 'dt', 'args']

/** Rows `decodeStorageRecord` expanded, keyed by their first member, until a restore takes them (`takeDecodedRun`). */
const decodedRuns = new WeakMap<object, readonly SessionEvent[]>()

/**
 * @internal The members `decodeStorageRecord` built for the row whose first member is `first`, forgotten once taken
 * (so a restored log does not keep them twice); `undefined` for any other value. Such members are deep-frozen, have
 * exactly the keys `type, seq, time, data` (`data` exactly `turn, step, chunk`), contiguous non-negative safe-integer
 * seqs and safe-integer times, and share one chunk kind, `turn`, `step`, `index` (and tool `id`/`name`); only their
 * text fragment differs. `seed.ts` admits a whole run from these facts.
 */
export function takeDecodedRun(first: unknown): readonly SessionEvent[] | undefined {
  if (typeof first !== 'object' || first === null) return undefined
  const members = decodedRuns.get(first)
  if (members !== undefined) decodedRuns.delete(first)
  return members
}

/**
 * Validates a stored chunk row once, as a row (01 §10), and returns it as a `PackedRun` whose members are built when
 * read; `undefined` for a value that is not an object or whose `type` is not a row tag (not validated).
 * @throws ChunkRowError `MALFORMED_CHUNK_ROW` (`malformed <tag> storage row: <why>`) for a row that fails 01 §10.
 */
export function decodeStorageRun(value: unknown): PackedRun | undefined {
  if (!isObj(value) || typeof value.type !== 'string' || !TAGS.has(value.type)) return undefined
  const tag = value.type as ChunkRowTag
  if (!exactKeys(value, ROW_KEYS)) fail(tag, 'envelope must be exactly {type, seq0, time0, data}')
  const { seq0, time0, data } = value
  if (!isSafeInt(seq0) || seq0 < 0) fail(tag, 'seq0 must be a non-negative safe integer')
  if (!isSafeInt(time0)) fail(tag, 'time0 must be a safe integer')
  if (!isObj(data)) return fail(tag, 'data must be an object')
  const tool = tag === 'tool-call-chunks'
  if (tool) {
    if (!exactKeys(data, TOOL_DATA_KEYS, 'name')) fail(tag, 'data must be exactly {turn, step, index, id, name?, dt, args}')
    if (typeof data.id !== 'string' || (hasOwn(data, 'name') && typeof data.name !== 'string')) {
      fail(tag, 'id (and name when present) must be strings')
    }
  } else if (!exactKeys(data, TEXT_DATA_KEYS)) {
    fail(tag, 'data must be exactly {turn, step, index, dt, texts}')
  }
  const { turn, step, index, dt } = data
  if (typeof turn !== 'number' || typeof step !== 'number' || typeof index !== 'number') {
    fail(tag, 'turn/step/index must be numbers')
  }
  const pieces = tool ? data.args : data.texts
  if (!Array.isArray(pieces) || pieces.length === 0 || !allStrings(pieces)) {
    fail(tag, `${tool ? 'args' : 'texts'} must be a non-empty string array`)
  }
  if (!Array.isArray(dt) || !allSafeInts(dt)) fail(tag, 'dt must be an array of safe integers')
  const n = (pieces as string[]).length
  const gaps = dt as number[]
  if (gaps.length !== n - 1) fail(tag, `dt length ${gaps.length} does not match ${n} members`)
  if (!isSafeInt((seq0 as number) + (n - 1))) fail(tag, 'member seqs must stay safe integers')
  // Gaps are safe integers, so the running time can leave the safe range only at its extremes.
  let t = time0 as number
  let low = t
  for (let i = 0; i < gaps.length; i++) {
    t += gaps[i] as number
    if (!isSafeInt(t)) fail(tag, 'member times must stay safe integers')
    if (t < low) low = t
  }
  return new PackedRun({
    tag, seq0: seq0 as number, time0: time0 as number, gaps, lowestTime: low, lastTime: t, turn: turn as number, step: step as number, index: index as number,
    pieces: pieces as string[], id: tool ? (data.id as CallId) : undefined,
    name: tool && hasOwn(data, 'name') ? (data.name as string) : undefined,
  })
}

/**
 * Expands a stored record: a valid row becomes its member events, built already deep-frozen and in declaration key
 * order; a value that is not an object or whose `type` is not a row tag is returned as `[value]`, unvalidated.
 * @throws ChunkRowError `MALFORMED_CHUNK_ROW` (`malformed <tag> storage row: <why>`) for a row that fails 01 §10.
 */
export function decodeStorageRecord(value: unknown): SessionEvent[] {
  const run = decodeStorageRun(value)
  if (run === undefined) return [value as SessionEvent]
  const members = run.members()
  // The registered list stays private: a caller editing the returned array cannot slip other values into a run.
  decodedRuns.set(members[0] as SessionEvent, members)
  return members.slice()
}

/** Throws the row's `ChunkRowError` (a module function: no closure per decoded row). */
function fail(tag: ChunkRowTag, why: string): never {
  throw new ChunkRowError(tag, why)
}

/** Every slot is a string (holes read as undefined, unlike `Array.prototype.every`). */
function allStrings(a: readonly unknown[]): boolean {
  for (let i = 0; i < a.length; i++) if (typeof a[i] !== 'string') return false
  return true
}

/** Every slot is a safe integer. */
function allSafeInts(a: readonly unknown[]): boolean {
  for (let i = 0; i < a.length; i++) if (!isSafeInt(a[i])) return false
  return true
}
