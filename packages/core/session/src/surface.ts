/**
 * The model-visible surface (spec 01 §4): an ordered list of node seqs plus `replaceGeneration`. Validation is a
 * pure plan (V1–V21) that never touches the state; `apply` commits a plan once the whole append has succeeded.
 */

import { SessionError } from './errors.ts'
import type { EventSource } from './event-log.ts'
import { countAtOrBefore } from './log-index.ts'
import type { FoldedSurface, SessionEvent, SessionSurface, SurfaceEvent } from './types.ts'
import { surfaceMetaProblem } from './validate.ts'
import { isSurfaceType } from './vocabulary.ts'

/** A validated surface transition: insert `seq` at `position`, shadowing `count` nodes (0 for an append). */
export interface SurfacePlan {
  readonly seq: number
  readonly position: number
  readonly count: number
}

/** The raw fields the surface rules read from an event or candidate. */
interface SurfaceCandidate {
  readonly type: string
  readonly seq: number
  readonly data?: unknown
  readonly surfaceOp?: unknown
  readonly sourceEventSeqs?: unknown
}

/**
 * The live surface of one session: mutable nodes plus a frozen snapshot built lazily on read, so an append never
 * copies the node list and the snapshot's identity changes only when the surface does.
 */
export class SurfaceState {
  readonly nodes: number[]
  replaceGeneration: number
  private view: SessionSurface | undefined

  constructor(nodes: number[] = [], replaceGeneration = 0) {
    this.nodes = nodes
    this.replaceGeneration = replaceGeneration
  }

  /** The frozen `{nodes, replaceGeneration}` of now; the same object until the surface changes. */
  snapshot(): SessionSurface {
    if (this.view !== undefined) return this.view
    const source = this.nodes
    const nodes = new Array<number>(source.length)
    for (let i = 0; i < source.length; i++) nodes[i] = source[i]!
    return this.view = Object.freeze({ nodes: Object.freeze(nodes), replaceGeneration: this.replaceGeneration })
  }

  /** Commit a plan made against this state. */
  apply(plan: SurfacePlan): void {
    if (plan.count === 0) {
      this.nodes.push(plan.seq)
    } else {
      this.nodes.splice(plan.position, plan.count, plan.seq)
      this.replaceGeneration++
    }
    this.view = undefined
  }

  /**
   * The surface after the events `0..b` when it can be read off this one (docs/benchmarks.md: a fork with no
   * replace so far): the nodes are then ascending append seqs, so the prefix's are those `<= b` (binary search, one
   * slice).
   * `undefined` once a replace happened: the prefix must be folded.
   */
  prefix(b: number): SurfaceState | undefined {
    if (this.replaceGeneration !== 0) return undefined
    return new SurfaceState(this.nodes.slice(0, countAtOrBefore(this.nodes, b)), 0)
  }

  /**
   * Apply an event's recorded `surfaceOp` with no validation: for prefixes that already passed §4.2 in their own
   * log (a live fork shares them).
   */
  applyRecorded(event: SessionEvent): void {
    const op = (event as SurfaceCandidate).surfaceOp
    if (op === undefined || !isSurfaceType(event.type)) return
    if (op === 'append') {
      this.nodes.push(event.seq)
    } else {
      const { start, end } = op as { start: number; end: number }
      const from = this.nodes.indexOf(start)
      this.nodes.splice(from, this.nodes.indexOf(end) - from + 1, event.seq)
      this.replaceGeneration++
    }
    this.view = undefined
  }
}

function surfaceError(message: string): SessionError {
  return new SessionError('INVALID_SURFACE', message)
}

/**
 * Validate the surface transition of `candidate` against `state` (V1–V21, in order) without mutating anything.
 * `log` holds every earlier event at the index of its seq. Returns `null` for an event that is not a surface node.
 * @throws SessionError `INVALID_SURFACE` with the §4.2 message.
 */
export function planSurface(state: SurfaceState, log: EventSource, candidate: SurfaceCandidate): SurfacePlan | null {
  const { type, seq, surfaceOp, sourceEventSeqs } = candidate
  // The common log-only event carries neither field: nothing to check (V1–V3) and nothing to plan.
  if (surfaceOp === undefined && sourceEventSeqs === undefined && !isSurfaceType(type)) return null
  const present = { op: surfaceOp !== undefined, sources: sourceEventSeqs !== undefined }
  const problem = surfaceMetaProblem(type, seq, surfaceOp, sourceEventSeqs, present)
  if (problem !== undefined) throw surfaceError(problem)
  if (surfaceOp === undefined) return null
  const nodes = state.nodes
  if (surfaceOp === 'append') return { seq, position: nodes.length, count: 0 }
  const { start, end } = surfaceOp as { start: number; end: number }
  const from = nodes.indexOf(start)
  if (from < 0) throw surfaceError(`surface replace: start seq ${start} is not a current surface node`)
  const to = nodes.indexOf(end)
  if (to < 0) throw surfaceError(`surface replace: end seq ${end} is not a current surface node`)
  if (from > to) {
    throw surfaceError(`surface replace: start seq ${start} (position ${from}) is after end seq ${end} (position ${to})`)
  }
  checkCoverage(nodes, from, to, sourceEventSeqs as readonly number[] | undefined)
  const count = to - from + 1
  checkTargets(log, nodes, from, count, candidate)
  return { seq, position: from, count }
}

/** V14: every shadowed node must be cited. */
function checkCoverage(nodes: readonly number[], from: number, to: number, sources: readonly number[] | undefined): void {
  const cited = new Set(sources)
  const missing: number[] = []
  for (let i = from; i <= to; i++) if (!cited.has(nodes[i]!)) missing.push(nodes[i]!)
  if (missing.length > 0) {
    throw surfaceError(`surface replace: sourceEventSeqs must include every shadowed node; missing ${missing.join(', ')}`)
  }
}

/** V15–V21: the system head, system rewrites and tool-result rewrites. */
function checkTargets(log: EventSource, nodes: readonly number[], from: number, count: number,
  candidate: SurfaceCandidate): void {
  const { type } = candidate
  if (from === 0 && type !== 'system/message') {
    const head = nodes[0]!
    if (log.at(head)?.type === 'system/message') {
      throw surfaceError(`surface replace: range covers the system head (seq ${head}); only a system/message may replace it`)
    }
  }
  if (type !== 'system/message' && type !== 'tool/result') return
  if (count !== 1) throw surfaceError(`${type} replacement must rewrite exactly one node; range covers ${count}`)
  const targetSeq = nodes[from]!
  const target = log.at(targetSeq)
  if (target?.type !== type) {
    throw surfaceError(`${type} replacement must target a ${type}; seq ${targetSeq} is "${String(target?.type)}"`)
  }
  if (type === 'system/message') return
  const next = candidate.data as ToolResultData
  const prev = target.data as unknown as ToolResultData
  if (next.message.id === prev.message.id) throw surfaceError('tool/result replacement must use a new message id')
  if (!sameExceptResultContent(next, prev)) {
    throw surfaceError('tool/result replacement may change only the result content and message id')
  }
}

type JsonObject = { readonly [key: string]: unknown }
interface ToolResultData extends JsonObject { readonly message: JsonObject & { readonly id: string; readonly content: readonly JsonObject[] } }

/** §4.6: equal data, leaving out `message.id` and `message.content[0].content`. */
function sameExceptResultContent(a: ToolResultData, b: ToolResultData): boolean {
  return sameObject(a, b, (key, x, y) => key === 'message'
    ? sameObject(x as JsonObject, y as JsonObject, (mKey, mx, my) => {
      if (mKey === 'id') return true
      if (mKey !== 'content') return jsonEqual(mx, my)
      const [ax, bx] = [mx as readonly JsonObject[], my as readonly JsonObject[]]
      if (ax.length !== bx.length) return false
      for (let i = 1; i < ax.length; i++) if (!jsonEqual(ax[i], bx[i])) return false
      return ax.length === 0 || sameObject(ax[0]!, bx[0]!, (bKey, bxv, byv) => bKey === 'content' || jsonEqual(bxv, byv))
    })
    : jsonEqual(x, y))
}

/** Same key set, and every key's values pass `same`. */
function sameObject(a: JsonObject, b: JsonObject, same: (key: string, x: unknown, y: unknown) => boolean): boolean {
  const keys = Object.keys(a)
  if (keys.length !== Object.keys(b).length) return false
  for (const key of keys) {
    if (!Object.hasOwn(b, key) || !same(key, a[key], b[key])) return false
  }
  return true
}

/** True iff `a` and `b` are equal lossless JSON values: arrays element by element, objects by key set and values (key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  const isArray = Array.isArray(a)
  if (isArray !== Array.isArray(b)) return false
  if (isArray) {
    const [x, y] = [a as readonly unknown[], b as readonly unknown[]]
    if (x.length !== y.length) return false
    for (let i = 0; i < x.length; i++) if (!jsonEqual(x[i], y[i])) return false
    return true
  }
  return sameObject(a as JsonObject, b as JsonObject, (_key, x, y) => jsonEqual(x, y))
}

/**
 * Replay `events` (a log contiguous from seq 0) through the surface rules of §4 and return fresh, mutable arrays:
 * the nodes, the generation and every replacement with the seqs it shadowed.
 * @throws SessionError `INVALID_SURFACE`, prefixed `event at seq <s>: `; also for a log that is not contiguous from
 * seq 0 (the rules look events up by seq, so a gap would check a rewrite against the wrong event).
 */
export function foldSurface(events: readonly SessionEvent[]): FoldedSurface {
  const state = new SurfaceState()
  const replacements: FoldedSurface['replacements'] = []
  for (let i = 0; i < events.length; i++) {
    const event = events[i]!
    if (event.seq !== i) {
      throw new SessionError('INVALID_SURFACE', `event at index ${i} has seq ${String(event.seq)}; foldSurface needs a log contiguous from seq 0`)
    }
    let plan: SurfacePlan | null
    try {
      plan = planSurface(state, events, event)
    } catch (error) {
      if (!(error instanceof SessionError)) throw error
      throw new SessionError(error.code, `event at seq ${String(event.seq)}: ${error.message}`)
    }
    if (plan === null) continue
    if (plan.count > 0) {
      const op = (event as SurfaceEvent).surfaceOp as { start: number; end: number }
      const shadowedSeqs = state.nodes.slice(plan.position, plan.position + plan.count)
      replacements.push({ seq: event.seq, start: op.start, end: op.end, shadowedSeqs })
    }
    state.apply(plan)
  }
  return { nodes: state.nodes, replaceGeneration: state.replaceGeneration, replacements }
}

/** True iff `event` is a surface type carrying `surfaceOp`, i.e. a surface node when it was appended. */
export function isSurfaceEvent(event: SessionEvent): event is SurfaceEvent {
  return isSurfaceType(event.type) && (event as SurfaceCandidate).surfaceOp !== undefined
}

/** True iff `event` entered the surface with `'append'`: the human transcript reads these (§4.7). */
export function isAppendSurfaceEvent(event: SessionEvent): boolean {
  return isSurfaceType(event.type) && (event as SurfaceCandidate).surfaceOp === 'append'
}

/** True iff `event` is a surface replacement (`{op: 'replace', …}`), e.g. a compaction summary (§4.7). */
export function isReplacementSurfaceEvent(event: SessionEvent): boolean {
  const op = (event as SurfaceCandidate).surfaceOp
  return isSurfaceType(event.type) && typeof op === 'object' && op !== null
}
