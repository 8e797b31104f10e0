/** `list` and pagination (spec 02 §1.3): P-023–P-028. */

import { expect, it } from 'vitest'
import type { SessionEvent } from '@logbook/session'
import type { ListPage, ListQuery } from '@logbook/session-persistence'
import type { Mount } from '../harness.ts'
import { useHarness } from '../harness.ts'
import { completeTurn, event, header, T0 } from '../events.ts'
import { rejects } from '../expect.ts'
import type { ConformanceOptions } from '../types.ts'
import { itUnless } from './it-unless.ts'

/** A one-event log whose only event has `time`. */
const at = (time: number): SessionEvent[] => [{ ...event('turn/start', 0, { turn: 1 }), time } as SessionEvent]

/** Walk every page of `query` with `limit`; returns the pages. */
async function walk(m: Mount, query: ListQuery, limit: number): Promise<ListPage[]> {
  const pages: ListPage[] = []
  let cursor: string | undefined
  do {
    const page = await m.persistence.list({ ...query, limit, ...(cursor === undefined ? {} : { cursor }) })
    pages.push(page)
    cursor = page.nextCursor ?? undefined
  } while (cursor !== undefined && pages.length < 100)
  return pages
}

const ids = (pages: readonly ListPage[]): string[] => pages.flatMap(p => p.items.map(i => i.id))

/** Register the `list` cases. */
export function listCases(options: ConformanceOptions): void {
  const h = useHarness(options)

  it('P-023 empty store; never-flushed live sessions are absent; 120 sessions page 50/50/20 newest first', async () => {
    const m = await h.mount({ writeBatchMaxDelayMs: 60_000 })
    expect(await m.persistence.list()).toEqual({ items: [], nextCursor: null, problems: [] })
    const { session } = m.live('live-only')
    session.append('turn/start', { turn: 1 })
    expect((await m.persistence.list()).items).toEqual([])
    for (let i = 0; i < 120; i++) await m.store(`s${String(i).padStart(3, '0')}`, at(T0 + 1000 * i))
    const pages = await walk(m, {}, 50)
    expect(pages.map(p => p.items.length)).toEqual([50, 50, 20])
    expect(pages.map(p => p.nextCursor === null)).toEqual([false, false, true])
    const expected = Array.from({ length: 120 }, (_, i) => `s${String(119 - i).padStart(3, '0')}`)
    expect(ids(pages)).toEqual(expected)
    const updated = pages.flatMap(p => p.items.map(i => i.updatedAt))
    expect(updated).toEqual([...updated].sort((a, b) => b - a))
    expect((await m.persistence.list()).items).toHaveLength(50)
  })

  it('P-024 equal updatedAt orders ids by UTF-8 bytes, not locale order, across page boundaries', async () => {
    const m = await h.mount()
    const order = ['9', 'B', 'a', 'a-b', 'a.b', 'aB', 'a_b']
    for (const id of [...order].reverse()) await m.store(id, at(T0))
    for (const limit of [3, 2, 1, 7]) {
      const pages = await walk(m, {}, limit)
      expect(ids(pages)).toEqual(order)
    }
  })

  it('P-025 filters: cwd exact, parentSession id or null, updatedAfter strict', async () => {
    const m = await h.mount()
    await m.store('c1', at(T0 + 100), { cwd: '/a/b-c' })
    await m.store('c2', at(T0 + 200), { cwd: '/a-b/c' })
    await m.store('c3', at(T0 + 300), { cwd: '/X' })
    await m.store('c4', at(T0 + 400), { cwd: '/x' })
    await m.store('k1', at(T0 + 500), { cwd: '/a/b-c', parentSession: 'c1' })
    await m.store('k2', at(T0 + 600), { cwd: '/x', parentSession: 'c1' })
    await m.store('k3', at(T0 + 700), { parentSession: 'c2' })
    const only = async (query: ListQuery): Promise<string[]> => ids(await walk(m, query, 2))
    expect(await only({ cwd: '/a/b-c' })).toEqual(['k1', 'c1'])
    expect(await only({ cwd: '/a-b/c' })).toEqual(['c2'])
    expect(await only({ cwd: '/X' })).toEqual(['c3'])
    expect(await only({ cwd: '/x' })).toEqual(['k2', 'c4'])
    expect(await only({ cwd: '/a' })).toEqual([])
    expect(await only({ parentSession: 'c1' })).toEqual(['k2', 'k1'])
    expect(await only({ parentSession: 'c2' })).toEqual(['k3'])
    expect(await only({ parentSession: null })).toEqual(['c4', 'c3', 'c2', 'c1'])
    expect(await only({ updatedAfter: T0 + 400 })).toEqual(['k3', 'k2', 'k1'])
    expect(await only({ updatedAfter: T0 + 399 })).toEqual(['k3', 'k2', 'k1', 'c4'])
    expect(await only({ cwd: '/x', parentSession: null, updatedAfter: T0 })).toEqual(['c4'])
  })

  it('P-026 limit 0, 501, 1.5, a garbage cursor and a cursor reused with other filters are INVALID_ARGUMENT', async () => {
    const m = await h.mount()
    for (let i = 0; i < 3; i++) await m.store(`s${i}`, at(T0 + i), { cwd: '/p' })
    for (const limit of [0, 501, 1.5, -1]) await rejects(m.persistence.list({ limit }), 'INVALID_ARGUMENT')
    await rejects(m.persistence.list({ cursor: 'garbage' }), 'INVALID_ARGUMENT')
    const first = await m.persistence.list({ cwd: '/p', limit: 1 })
    expect(first.nextCursor).not.toBeNull()
    const cursor = first.nextCursor!
    await rejects(m.persistence.list({ cursor, limit: 1 }), 'INVALID_ARGUMENT')
    await rejects(m.persistence.list({ cwd: '/q', cursor, limit: 1 }), 'INVALID_ARGUMENT')
    await rejects(m.persistence.list({ cwd: '/p', parentSession: null, cursor, limit: 1 }), 'INVALID_ARGUMENT')
    const second = await m.persistence.list({ cwd: '/p', cursor, limit: 1 })
    expect(second.items.map(i => i.id)).toEqual(['s1'])
    expect((await m.persistence.list({ cwd: '/p', cursor, limit: 2 })).items.map(i => i.id)).toEqual(['s1', 's0'])
  })

  it('P-027 a summary has eventCount = last seq + 1, updatedAt = its time, revision = inspect revision', async () => {
    const m = await h.mount()
    await m.store('s1', completeTurn(0, 1))
    const [item] = (await m.persistence.list()).items
    expect(item).toMatchObject({ id: 's1', eventCount: 6, updatedAt: T0 + 5 })
    expect(item!.header).toEqual(header('s1'))
    expect(item!.revision).toBe((await m.persistence.inspect('s1')).revision)
    if (h.caps.locate) expect(item!.location).toBe(await m.persistence.locate('s1'))
    await m.store('s2', [event('turn/start', 0, { turn: 1 })])
    await m.persistence.repair('s2', { cutAt: 0, confirm: 'cut-records' })
    {
      const cut = (await m.persistence.list()).items.find(i => i.id === 's2')
      expect(cut).toMatchObject({ eventCount: 0, updatedAt: header('s2').createdAt })
      expect(cut!.revision).toBe((await m.persistence.inspect('s2')).revision)
    }
  })

  itUnless(!options.capabilities.damage)('P-028 one of five sessions with a corrupt header: 4 items and 1 problem, on page 1 only', async () => {
    const m = await h.mount()
    for (let i = 0; i < 5; i++) await m.store(`s${i}`, at(T0 + i))
    await h.damage.setHeaderField('s2', 'createdAt', 'corrupt')
    const pages = await walk(m, {}, 2)
    expect(ids(pages)).toEqual(['s4', 's3', 's1', 's0'])
    expect(pages[0]!.problems).toHaveLength(1)
    const [problem] = pages[0]!.problems
    if (problem!.sessionId !== undefined) expect(problem!.sessionId).toBe('s2')
    expect(typeof problem!.location).toBe('string')
    for (const page of pages.slice(1)) expect(page.problems).toEqual([])
  })
}
