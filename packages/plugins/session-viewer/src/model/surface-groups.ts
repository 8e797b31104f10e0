/**
 * The surface ("what the model sees") cut into groups for a page: the nodes in surface order, each group a run of
 * consecutive nodes whose events were logged in the same turn segment. A page of segments shows the groups of its
 * segments, so switching between the log and the surface keeps the reader at the same turns.
 */

import type { SessionView } from './session-view.ts'

/** Consecutive surface nodes from one segment. */
export interface SurfaceGroup {
  /** The segment the nodes' events were logged in. */
  readonly segment: number
  /** Surface position of the first node (stable until a replace moves nodes). */
  readonly position: number
  readonly seqs: readonly number[]
}

/** The groups of nodes logged in segments `from..to` (inclusive), in surface order. */
export function surfaceGroups(view: SessionView, from: number, to: number): SurfaceGroup[] {
  const groups: { segment: number; position: number; seqs: number[] }[] = []
  const { nodes } = view
  for (let position = 0; position < nodes.length; position++) {
    const seq = nodes[position]!
    const segment = view.segmentOf(seq)
    if (segment < from || segment > to) continue
    const last = groups.at(-1)
    if (last !== undefined && last.segment === segment && last.position + last.seqs.length === position) last.seqs.push(seq)
    else groups.push({ segment, position, seqs: [seq] })
  }
  return groups
}

/** The group that holds the surface's last node, if any (where live appends land). */
export function tailGroup(view: SessionView): SurfaceGroup | undefined {
  const last = view.nodes.length - 1
  if (last < 0) return undefined
  const segment = view.segmentOf(view.nodes[last]!)
  let first = last
  while (first > 0 && view.segmentOf(view.nodes[first - 1]!) === segment) first--
  return { segment, position: first, seqs: view.nodes.slice(first) }
}
