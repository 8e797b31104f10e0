/**
 * The chunk-row storage codec (01 §10). Rows are storage records, never events: runs of at least MIN_CHUNK_RUN
 * one-token `assistant/chunk` events are packed into one row whose members decode back exactly (up to key order).
 */
import { ChunkRowError } from './errors.ts'
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

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)
const isSafeInt = Number.isSafeInteger as (v: unknown) => v is number
const hasOwn = Object.hasOwn

/** Own keys are exactly `required` plus any present among `optional` (order free). */
function exactKeys(o: Obj, required: readonly string[], optional?: string): boolean {
  let n = 0
  for (const k in o) if (hasOwn(o, k)) n++
  for (const k of required) if (!hasOwn(o, k)) return false
  return n === required.length + (optional !== undefined && hasOwn(o, optional) ? 1 : 0)
}

/** A packable chunk event, reduced to what a run compares and stores. */
interface Packable {
  readonly kind: ChunkRowTag; readonly seq: number; readonly time: number; readonly turn: number
  readonly step: number; readonly index: number; readonly piece: string; readonly id?: string; readonly name?: string
}

/** The whitelist of 01 §10 "Packable"; anything else is passed through verbatim. */
function packable(r: unknown): Packable | undefined {
  if (!isObj(r) || r.type !== 'assistant/chunk' || !isSafeInt(r.seq) || r.seq < 0 || !isSafeInt(r.time)) return undefined
  if (!exactKeys(r, ['type', 'seq', 'time', 'data'])) return undefined
  const d = r.data
  if (!isObj(d) || !exactKeys(d, ['turn', 'step', 'chunk'])) return undefined
  const { turn, step, chunk: c } = d
  if (typeof turn !== 'number' || typeof step !== 'number' || !isObj(c) || typeof c.index !== 'number') return undefined
  const base = { seq: r.seq, time: r.time, turn, step, index: c.index }
  if (c.type === 'text-delta' || c.type === 'reasoning-delta') {
    if (typeof c.text !== 'string' || !exactKeys(c, ['type', 'index', 'text'])) return undefined
    return { ...base, kind: c.type === 'text-delta' ? 'text-chunks' : 'reasoning-chunks', piece: c.text }
  }
  if (c.type !== 'tool-call-delta' || typeof c.id !== 'string' || typeof c.argumentsDelta !== 'string') return undefined
  if (!exactKeys(c, ['type', 'index', 'id', 'argumentsDelta'], 'name')) return undefined
  if (c.name === undefined) return { ...base, kind: 'tool-call-chunks', piece: c.argumentsDelta, id: c.id }
  if (typeof c.name !== 'string') return undefined
  return { ...base, kind: 'tool-call-chunks', piece: c.argumentsDelta, id: c.id, name: c.name }
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
const TEXT_DATA_KEYS = ['turn', 'step', 'index', 'dt', 'texts']
const TOOL_DATA_KEYS = ['turn', 'step', 'index', 'id', 'dt', 'args']

/**
 * Expands a stored record: a valid row becomes its member events, built already deep-frozen and in declaration key
 * order; a value that is not an object or whose `type` is not a row tag is returned as `[value]`, unvalidated.
 * @throws ChunkRowError `MALFORMED_CHUNK_ROW` (`malformed <tag> storage row: <why>`) for a row that fails 01 §10.
 */
export function decodeStorageRecord(value: unknown): SessionEvent[] {
  if (!isObj(value) || typeof value.type !== 'string' || !TAGS.has(value.type)) return [value as SessionEvent]
  const tag = value.type as ChunkRowTag
  const fail = (why: string): never => {
    throw new ChunkRowError(tag, why)
  }
  if (!exactKeys(value, ['type', 'seq0', 'time0', 'data'])) fail('envelope must be exactly {type, seq0, time0, data}')
  const { seq0, time0, data } = value
  if (!isSafeInt(seq0) || seq0 < 0) fail('seq0 must be a non-negative safe integer')
  if (!isSafeInt(time0)) fail('time0 must be a safe integer')
  if (!isObj(data)) return fail('data must be an object')
  const tool = tag === 'tool-call-chunks'
  if (tool) {
    if (!exactKeys(data, TOOL_DATA_KEYS, 'name')) fail('data must be exactly {turn, step, index, id, name?, dt, args}')
    if (typeof data.id !== 'string' || (hasOwn(data, 'name') && typeof data.name !== 'string')) {
      fail('id (and name when present) must be strings')
    }
  } else if (!exactKeys(data, TEXT_DATA_KEYS)) {
    fail('data must be exactly {turn, step, index, dt, texts}')
  }
  const { turn, step, index, dt } = data
  if (typeof turn !== 'number' || typeof step !== 'number' || typeof index !== 'number') {
    fail('turn/step/index must be numbers')
  }
  const pieces = tool ? data.args : data.texts
  if (!Array.isArray(pieces) || pieces.length === 0 || !allOf(pieces, (p) => typeof p === 'string')) {
    fail(`${tool ? 'args' : 'texts'} must be a non-empty string array`)
  }
  if (!Array.isArray(dt) || !allOf(dt, isSafeInt)) fail('dt must be an array of safe integers')
  const n = (pieces as string[]).length
  const gaps = dt as number[]
  if (gaps.length !== n - 1) fail(`dt length ${gaps.length} does not match ${n} members`)
  if (!isSafeInt((seq0 as number) + (n - 1))) fail('member seqs must stay safe integers')
  const times = [time0 as number]
  for (let i = 0; i < gaps.length; i++) {
    const t = (times[i] as number) + (gaps[i] as number)
    if (!isSafeInt(t)) fail('member times must stay safe integers')
    times.push(t)
  }
  return buildMembers(tag, seq0 as number, times, turn as number, step as number, index as number, pieces as string[],
    tool ? (data.id as string) : undefined, tool && hasOwn(data, 'name') ? (data.name as string) : undefined)
}

/** Every slot satisfies `test` (holes read as undefined, unlike `Array.prototype.every`). */
function allOf(a: readonly unknown[], test: (v: unknown) => boolean): boolean {
  for (let i = 0; i < a.length; i++) if (!test(a[i])) return false
  return true
}

function buildMembers(
  tag: ChunkRowTag, seq0: number, times: readonly number[], turn: number, step: number, index: number,
  pieces: readonly string[], id: string | undefined, name: string | undefined,
): SessionEvent[] {
  const freeze = Object.freeze
  const members: SessionEvent[] = []
  const deltaType = tag === 'text-chunks' ? 'text-delta' : 'reasoning-delta'
  for (let i = 0; i < pieces.length; i++) {
    const piece = pieces[i] as string
    const chunk = id === undefined
      ? freeze({ type: deltaType, index, text: piece })
      : name === undefined
        ? freeze({ type: 'tool-call-delta' as const, index, id: id as CallId, argumentsDelta: piece })
        : freeze({ type: 'tool-call-delta' as const, index, id: id as CallId, name, argumentsDelta: piece })
    members.push(freeze({
      type: 'assistant/chunk' as const, seq: seq0 + i, time: times[i] as number, data: freeze({ turn, step, chunk }),
    }))
  }
  return members
}
