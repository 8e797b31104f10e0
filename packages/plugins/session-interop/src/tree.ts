/**
 * Record trees (Claude Code's `uuid`/`parentUuid`, pi's `id`/`parentId`): the leaves, the path from the root to a
 * leaf, and which leaf is the session. The newest leaf (latest timestamp, then latest in the file) is the session
 * unless the caller prefers one; every other leaf is a branch.
 */

import { InteropError } from './errors.ts'

/** One record of a tree. */
export interface TreeNode<R> {
  readonly id: string
  /** The parent's id, or null for a root. */
  readonly parent: string | null
  readonly line: number
  readonly time?: number
  readonly record: R
}

/** A forest of records, indexed. */
export class Forest<R> {
  readonly byId = new Map<string, TreeNode<R>>()
  private readonly children = new Map<string, string[]>()

  /**
   * Index `nodes` (file order); a repeated id keeps its first record and is reported through `onDuplicate`.
   * @throws InteropError `SOURCE_MALFORMED` when a record names a parent that is not in the file, or parents form
   * a cycle.
   */
  constructor(nodes: readonly TreeNode<R>[], label: string, onDuplicate: (node: TreeNode<R>) => void) {
    for (const node of nodes) {
      if (this.byId.has(node.id)) onDuplicate(node)
      else this.byId.set(node.id, node)
    }
    for (const node of this.byId.values()) {
      if (node.parent === null) continue
      if (!this.byId.has(node.parent)) {
        throw new InteropError('SOURCE_MALFORMED', `${label}: line ${node.line}: record ${node.id} names parent ${node.parent}, which is not in the file`)
      }
      const list = this.children.get(node.parent)
      if (list === undefined) this.children.set(node.parent, [node.id])
      else list.push(node.id)
    }
    this.assertAcyclic(label)
  }

  /** Every walk up ends at a root: each record is visited once, walks stop at records already known to be fine. */
  private assertAcyclic(label: string): void {
    const fine = new Set<string>()
    for (const start of this.byId.values()) {
      const walk = new Set<string>()
      let current: TreeNode<R> | undefined = start
      while (current !== undefined && !fine.has(current.id)) {
        if (walk.has(current.id)) {
          throw new InteropError('SOURCE_MALFORMED', `${label}: line ${current.line}: the parents of record ${current.id} form a cycle`)
        }
        walk.add(current.id)
        current = current.parent === null ? undefined : this.byId.get(current.parent)
      }
      for (const id of walk) fine.add(id)
    }
  }

  /** The leaves (records without children), in file order. */
  leaves(): TreeNode<R>[] {
    return [...this.byId.values()].filter(node => !this.children.has(node.id)).sort((a, b) => a.line - b.line)
  }

  /** The records from the root down to `id` (the constructor has ruled out cycles). */
  pathTo(id: string): TreeNode<R>[] {
    const path: TreeNode<R>[] = []
    let current = this.byId.get(id)
    while (current !== undefined) {
      path.push(current)
      current = current.parent === null ? undefined : this.byId.get(current.parent)
    }
    return path.reverse()
  }
}

/** The newest of `leaves`: latest time, then latest line. */
export function newestLeaf<R>(leaves: readonly TreeNode<R>[]): TreeNode<R> | undefined {
  let best: TreeNode<R> | undefined
  for (const leaf of leaves) {
    if (best === undefined) {
      best = leaf
      continue
    }
    const a = leaf.time ?? Number.NEGATIVE_INFINITY
    const b = best.time ?? Number.NEGATIVE_INFINITY
    if (a > b || (a === b && leaf.line > best.line)) best = leaf
  }
  return best
}

/** The length of the common prefix of two paths. */
export function commonPrefix<R>(a: readonly TreeNode<R>[], b: readonly TreeNode<R>[]): number {
  let n = 0
  while (n < a.length && n < b.length && a[n]!.id === b[n]!.id) n++
  return n
}
