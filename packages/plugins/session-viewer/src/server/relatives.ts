/**
 * A session's place in its fork tree, read from the store: the parent named by its header (cut after
 * `seedLength − 1`), and every stored child (sessions whose `parentSession` is this one), each with its cut.
 */

import type { SessionHeader } from '@logbook/session'
import type { SessionPersistence } from '@logbook/session-persistence'
import type { ForkCuts } from '../model/item-types.ts'
import type { ForkRelatives } from '../render/session-page.ts'

/** The most children listed (pages of 500). */
const MAX_CHILD_PAGES = 10

/** The seq a fork child was cut after, or `undefined` for a child that is not a fork (a subagent). */
export function cutOf(header: SessionHeader): number | undefined {
  return header.isSeeded === true && header.seedLength !== undefined ? header.seedLength - 1 : undefined
}

/** Parent and children of the session with `header`. */
export async function readRelatives(persistence: SessionPersistence, header: SessionHeader): Promise<ForkRelatives> {
  const children: { id: string; afterSeq?: number }[] = []
  let cursor: string | null = null
  for (let page = 0; page < MAX_CHILD_PAGES; page++) {
    const listed: Awaited<ReturnType<SessionPersistence['list']>> = await persistence.list({ parentSession: header.id, limit: 500, ...(cursor === null ? {} : { cursor }) })
    for (const item of listed.items) {
      const afterSeq = cutOf(item.header)
      children.push({ id: item.id, ...(afterSeq === undefined ? {} : { afterSeq }) })
    }
    cursor = listed.nextCursor
    if (cursor === null) break
  }
  children.sort((a, b) => (a.afterSeq ?? -1) - (b.afterSeq ?? -1) || (a.id < b.id ? -1 : 1))
  const parentCut = cutOf(header)
  const parent = header.parentSession === undefined ? undefined : { id: header.parentSession, ...(parentCut === undefined ? {} : { afterSeq: parentCut }) }
  return { ...(parent === undefined ? {} : { parent }), children }
}

/** The children's cuts, by the parent seq they were cut after. */
export function forkCuts(relatives: ForkRelatives): ForkCuts {
  const cuts = new Map<number, string[]>()
  for (const child of relatives.children) {
    if (child.afterSeq === undefined) continue
    const list = cuts.get(child.afterSeq) ?? []
    list.push(child.id)
    cuts.set(child.afterSeq, list)
  }
  return cuts
}
