/**
 * A packed chunk run (01 §10): one validated chunk row held as its fields, whose member events are built — frozen,
 * in declaration key order, equal to what an eager decode builds — only when something reads them, and then cached,
 * so every reader of one member sees one object. A restore keeps runs packed (docs/benchmarks.md: building every
 * member up front costs more than parsing the whole log).
 */
import type { ChunkRowTag } from './codec.ts'
import type { CallId, SessionEvent, StreamChunk } from './types.ts'

const freeze = Object.freeze

/** Most distinct fragments `sharedDelta` remembers per delta type before it starts over. */
const SHARED_DELTA_LIMIT = 4096

/** Per delta type: fragment → the frozen `{type, index: 0, text}` chunk built members share. */
const sharedDeltas = {
  'text-delta': new Map<string, StreamChunk>(),
  'reasoning-delta': new Map<string, StreamChunk>(),
}

/**
 * The frozen chunk `{type, index, text}` of a text or reasoning member. Model output repeats its tokens, so members
 * with index +0 (nearly all) share one frozen chunk per fragment from a bounded table that starts over once full.
 * Sharing is invisible: the chunk is deep-frozen and equal to the one a member would own. Any other index (including
 * -0, which the seed's lossless check must still see) gets its own chunk.
 */
function sharedDelta(type: 'text-delta' | 'reasoning-delta', index: number, text: string): StreamChunk {
  if (index !== 0 || 1 / index < 0) return freeze({ type, index, text })
  const table = sharedDeltas[type]
  let chunk = table.get(text)
  if (chunk === undefined) {
    if (table.size >= SHARED_DELTA_LIMIT) table.clear()
    chunk = freeze({ type, index: 0, text })
    table.set(text, chunk)
  }
  return chunk
}

/** The validated fields of one chunk row (`decodeStorageRun` checks them; nothing here re-checks). */
export interface PackedRunFields {
  readonly tag: ChunkRowTag
  readonly seq0: number
  /** The first member's time; member `k`'s is `time0` plus the first `k` gaps (all safe integers). */
  readonly time0: number
  readonly gaps: readonly number[]
  /** The smallest member time. */
  readonly lowestTime: number
  /** The last member's time. */
  readonly lastTime: number
  readonly turn: number
  readonly step: number
  readonly index: number
  /** The text fragments, or the tool-call argument fragments. */
  readonly pieces: readonly string[]
  readonly id: CallId | undefined
  readonly name: string | undefined
}

/**
 * One packed run of `assistant/chunk` events with seqs `seq0 … seq0 + length − 1`. Its members share type, `turn`,
 * `step`, chunk kind, `index` (and tool `id`/`name`); only the fragment and the time differ. `member(k)` always
 * returns the same frozen object for one `k`.
 */
export class PackedRun {
  readonly tag: ChunkRowTag
  readonly seq0: number
  readonly length: number
  /** True when no member time is negative (a restore's envelope rule, checked once per run). */
  readonly timesNonNegative: boolean
  private readonly fields: PackedRunFields
  private built: (SessionEvent | undefined)[] | undefined = undefined
  private times: number[] | undefined = undefined

  constructor(fields: PackedRunFields) {
    this.fields = fields
    this.tag = fields.tag
    this.seq0 = fields.seq0
    this.length = fields.pieces.length
    this.timesNonNegative = fields.lowestTime >= 0
  }

  /** Every member's time, summed once when a member other than the first is built. */
  private memberTimes(): readonly number[] {
    if (this.times !== undefined) return this.times
    const { time0, gaps } = this.fields
    const times = [time0]
    for (let i = 0, t = time0; i < gaps.length; i++) times.push(t += gaps[i]!)
    return this.times = times
  }

  /** The first member's time. */
  get firstTime(): number {
    return this.fields.time0
  }

  /** The last member's time. */
  get lastTime(): number {
    return this.fields.lastTime
  }

  /** The `turn`, `step` and chunk `index` every member shares. */
  get shared(): { readonly turn: number; readonly step: number; readonly index: number } {
    return this.fields
  }

  /** Member `k` (0-based), built frozen on first read and cached. */
  member(k: number): SessionEvent {
    const built = this.built ??= new Array<SessionEvent | undefined>(this.length)
    return built[k] ??= this.build(k)
  }

  /** Every member in order, as a fresh array (each built once). */
  members(): SessionEvent[] {
    const out: SessionEvent[] = []
    for (let k = 0; k < this.length; k++) out.push(this.member(k))
    return out
  }

  private build(k: number): SessionEvent {
    const { tag, seq0, turn, step, index, pieces, id, name } = this.fields
    // A restore reads only each run's first member: its time needs no running sum.
    const time = k === 0 ? this.fields.time0 : this.memberTimes()[k]!
    let chunk: StreamChunk
    if (id === undefined) {
      chunk = sharedDelta(tag === 'text-chunks' ? 'text-delta' : 'reasoning-delta', index, pieces[k]!)
    } else if (name === undefined) {
      chunk = freeze({ type: 'tool-call-delta' as const, index, id, argumentsDelta: pieces[k]! })
    } else {
      chunk = freeze({ type: 'tool-call-delta' as const, index, id, name, argumentsDelta: pieces[k]! })
    }
    return freeze({ type: 'assistant/chunk' as const, seq: seq0 + k, time, data: freeze({ turn, step, chunk }) })
  }
}
