/**
 * The surface of a log being built, tracked as it grows: the model-visible nodes in position order, each with its
 * tool-pairing delta (03 §2.3: + the calls of an assistant message, − 1 per tool result), so a compaction can find a
 * balanced cut without replaying the log.
 */

import { foldSurface, isReplacementSurfaceEvent, type SessionEvent } from '@logbook/session'

/** One surface node. */
export interface TrackedNode {
  readonly seq: number
  readonly delta: number
  /** False for a node that replaced others (a compaction checkpoint). */
  readonly appendOrigin: boolean
}

/** The pairing delta of a surface event. */
function deltaOf(event: SessionEvent): number {
  switch (event.type) {
    case 'assistant/message':
      return event.data.message.content.filter(block => block.type === 'tool-call').length
    case 'tool/result':
      return -1
    default:
      return 0
  }
}

/** The surface nodes of a log under construction. */
export class SurfaceTrack {
  private readonly nodes: TrackedNode[]

  /** Start from the surface of `seed` (a valid log from seq 0). */
  constructor(seed: readonly SessionEvent[] = []) {
    this.nodes = foldSurface(seed).nodes.map(seq => ({
      seq, delta: deltaOf(seed[seq]!), appendOrigin: !isReplacementSurfaceEvent(seed[seq]!),
    }))
  }

  /** The nodes in position order (a copy). */
  list(): TrackedNode[] {
    return [...this.nodes]
  }

  /** The number of nodes. */
  get size(): number {
    return this.nodes.length
  }

  /** The node at `position`, if any. */
  node(position: number): TrackedNode | undefined {
    return this.nodes[position]
  }

  /** The nodes from `position` to the end (a copy). */
  from(position: number): TrackedNode[] {
    return this.nodes.slice(position)
  }

  /** Apply `event`, which was just appended with its `surfaceOp` (if any). */
  apply(event: SessionEvent): void {
    const op = (event as { readonly surfaceOp?: unknown }).surfaceOp
    if (op === undefined) return
    if (op === 'append') {
      this.nodes.push({ seq: event.seq, delta: deltaOf(event), appendOrigin: true })
      return
    }
    const { start, end } = op as { readonly start: number; readonly end: number }
    const from = this.nodes.findIndex(node => node.seq === start)
    const to = this.nodes.findIndex(node => node.seq === end)
    this.nodes.splice(from, to - from + 1, { seq: event.seq, delta: deltaOf(event), appendOrigin: false })
  }

  /** True iff every call before position `cut` is answered before it. */
  balancedAt(cut: number): boolean {
    let counter = 0
    for (let i = 0; i < cut; i++) counter += this.nodes[i]!.delta
    return counter === 0
  }
}
