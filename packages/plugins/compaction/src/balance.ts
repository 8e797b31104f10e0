/**
 * Tool-pairing balance (spec 03 §2.3): N surface nodes have N+1 cut points; cut i is balanced iff the tool-call
 * counter over nodes 0..i−1 is 0. A per-session `BalanceCache` keeps the counters and a seq → position index.
 */

import type { Session, SessionEvent } from '@logbook/session'
import { CompactionError } from './errors.ts'
import { logOf } from './log.ts'

/** The per-session cache of §2.3; `counters[i]` is the counter before node i (length `nodeCount + 1`). */
interface BalanceCache {
  readonly generation: number
  readonly counters: number[]
  readonly nodeCount: number
  readonly indexBySeq: Map<number, number>
}

/** A consistent read of one session's surface and its balance. */
export interface BalanceView {
  readonly nodes: readonly number[]
  readonly counters: readonly number[]
  readonly indexBySeq: ReadonlyMap<number, number>
}

const caches = new WeakMap<Session, BalanceCache>()
const counts = new WeakMap<Session, { rebuilds: number; nodesRead: number }>()

function countsOf(session: Session): { rebuilds: number; nodesRead: number } {
  let entry = counts.get(session)
  if (entry === undefined) counts.set(session, entry = { rebuilds: 0, nodesRead: 0 })
  return entry
}

/** The counter change of one node: + its tool-call blocks, −1 for a tool result, 0 otherwise. */
function delta(event: SessionEvent): number {
  switch (event.type) {
    case 'assistant/message': {
      let calls = 0
      for (const block of event.data.message.content) if (block.type === 'tool-call') calls++
      return calls
    }
    case 'tool/result':
      return -1
    default:
      return 0
  }
}

/**
 * Counters after each of `nodes[from..]`, starting from `counter`, into fresh arrays (nothing is committed here).
 * @throws CompactionError `CORRUPT_SURFACE` when the counter goes negative.
 */
function readNodes(session: Session, nodes: readonly number[], from: number, counter: number): { counters: number[]; seqs: number[] } {
  const events = logOf(session)
  const counters: number[] = []
  const seqs: number[] = []
  const tally = countsOf(session)
  for (let i = from; i < nodes.length; i++) {
    const seq = nodes[i]!
    tally.nodesRead++
    counter += delta(events[seq]!)
    if (counter < 0) {
      throw new CompactionError('CORRUPT_SURFACE', `tool result at seq ${seq} has no matching tool call`)
    }
    counters.push(counter)
    seqs.push(seq)
  }
  return { counters, seqs }
}

/**
 * The balance of `session`'s current surface, through its cache: rebuilt (every node read) after a replace or a
 * shrink, extended by the new nodes only after node appends, untouched after log-only appends. A failing read
 * throws every time and leaves the cache as it was.
 * @throws CompactionError `CORRUPT_SURFACE` ("tool result at seq <n> has no matching tool call").
 */
export function balanceView(session: Session): BalanceView {
  const surface = session.surface
  const nodes = surface.nodes
  const cache = caches.get(session)
  if (cache === undefined || cache.generation !== surface.replaceGeneration || nodes.length < cache.nodeCount) {
    const { counters, seqs } = readNodes(session, nodes, 0, 0)
    const indexBySeq = new Map<number, number>()
    for (let i = 0; i < seqs.length; i++) indexBySeq.set(seqs[i]!, i)
    const built: BalanceCache = {
      generation: surface.replaceGeneration, counters: [0, ...counters], nodeCount: nodes.length, indexBySeq,
    }
    caches.set(session, built)
    countsOf(session).rebuilds++
    return { nodes, counters: built.counters, indexBySeq }
  }
  if (nodes.length > cache.nodeCount) {
    const { counters, seqs } = readNodes(session, nodes, cache.nodeCount, cache.counters[cache.nodeCount]!)
    const extended: BalanceCache = {
      generation: cache.generation, counters: cache.counters, nodeCount: nodes.length, indexBySeq: cache.indexBySeq,
    }
    for (let i = 0; i < seqs.length; i++) {
      extended.counters.push(counters[i]!)
      extended.indexBySeq.set(seqs[i]!, cache.nodeCount + i)
    }
    caches.set(session, extended)
    return { nodes, counters: extended.counters, indexBySeq: extended.indexBySeq }
  }
  return { nodes, counters: cache.counters, indexBySeq: cache.indexBySeq }
}

function positionOf(view: BalanceView, seq: number): number {
  const position = view.indexBySeq.get(seq)
  if (position === undefined) throw new CompactionError('INVALID_SPAN', `surface seq ${seq} not found`)
  return position
}

/**
 * Whether the cut before node `seq` is balanced.
 * @throws CompactionError `INVALID_SPAN` ("surface seq <n> not found") for a seq that is not a current node;
 * `CORRUPT_SURFACE` for an unbalanced surface.
 */
export function balancedBefore(session: Session, seq: number): boolean {
  const view = balanceView(session)
  return view.counters[positionOf(view, seq)] === 0
}

/**
 * Whether the cut after node `seq` is balanced.
 * @throws CompactionError `INVALID_SPAN` ("surface seq <n> not found"), `CORRUPT_SURFACE`.
 */
export function balancedAfter(session: Session, seq: number): boolean {
  const view = balanceView(session)
  return view.counters[positionOf(view, seq) + 1] === 0
}

/**
 * All N+1 cut points of the surface: entry i tells whether the cut before node i (entry N: after the tail) is
 * balanced.
 * @throws CompactionError `CORRUPT_SURFACE`.
 */
export function cutPoints(session: Session): boolean[] {
  return balanceView(session).counters.map(counter => counter === 0)
}

/** Counters of the per-session `BalanceCache`, read by tests (§2.3); not part of the package's API. */
export interface BalanceCacheStats {
  readonly rebuilds: number
  readonly nodesRead: number
}

/** How often `session`'s balance cache was rebuilt and how many nodes it has read in total (for tests). */
export function balanceCacheStats(session: Session): BalanceCacheStats {
  const { rebuilds, nodesRead } = countsOf(session)
  return { rebuilds, nodesRead }
}
