/** Write-behind of live sessions (spec 02 §2.1, §2.2): P-036–P-041 (P-033–P-035 are [unit]). */

import { expect, it } from 'vitest'
import { SESSION_FORMAT_VERSION, type Session } from '@logbook/session'
import { useHarness, type Mount } from '../harness.ts'
import { completeTurn, CWD, header } from '../events.ts'
import { expectLossless, expectUnchanged, rejects, storedState } from '../expect.ts'
import type { ConformanceOptions } from '../types.ts'
import { itUnless } from './it-unless.ts'

/** Append a user turn opening (turn/start, user/message, step/start) to a live session. */
export function openLiveTurn(session: Session, turn: number): void {
  session.append('turn/start', { turn })
  session.append('user/message', { id: `u-${turn}` as never, role: 'user', content: [{ type: 'text', text: `hi ${turn}` }], source: { kind: 'user' } }, { surfaceOp: 'append' })
  session.append('step/start', { turn, step: 1 })
}

/** Append chunks, the answer and the closing step/turn events of an open live turn. */
export function closeLiveTurn(session: Session, turn: number, chunks = 0): void {
  for (let i = 0; i < chunks; i++) session.append('assistant/chunk', { turn, step: 1, chunk: { type: 'text-delta', index: 0, text: `c${i} ` } })
  const message = { id: `a-${turn}` as never, role: 'assistant' as const, content: [{ type: 'text' as const, text: `answer ${turn}` }], source: { kind: 'model' as const, provider: 'scripted', model: 'm1' } }
  session.append('assistant/message', { turn, step: 1, message }, { surfaceOp: 'append' })
  session.append('step/end', { turn, step: 1 })
  session.append('turn/end', { turn, reason: { kind: 'completed' } })
}

/** The stored events of `id` must equal the live session's log exactly (lossless). */
export async function expectStoredLive(m: Mount, session: Session): Promise<void> {
  expectLossless(await m.persistence.readFrom(session.id, 0), [...session.events])
}

/** Register the `write-behind` cases. */
export function writeBehindCases(options: ConformanceOptions): void {
  const h = useHarness(options)
  const durable = options.capabilities.durableAcrossInstances

  it('P-036 a live session disposed with zero events stores nothing; otherwise its first batch materialises header and events together', async () => {
    const m = await h.mount({ writeBatchMaxDelayMs: 60_000 })
    const empty = m.live('s1')
    empty.detach()
    const handle = await m.persistence.create(header('s1'))
    await handle.close()
    await rejects(m.persistence.open('s1', 'read'), 'SESSION_NOT_FOUND')
    const { session, detach } = m.live('s2')
    openLiveTurn(session, 1)
    expect((await m.persistence.list()).items).toEqual([])
    await rejects(m.persistence.open('s2', 'read'), 'SESSION_NOT_FOUND')
    await m.sessions.flush(session)
    const commits = m.committed.filter(c => c.sessionId === 's2')
    expect(commits).toHaveLength(1)
    expect(commits[0]).toMatchObject({ source: 'live', fromSeq: 0, toSeq: 3 })
    expect(commits[0]!.events).toHaveLength(3)
    const inspection = await m.persistence.inspect('s2')
    expectLossless(inspection.header, session.header)
    expect(inspection.revision).toBe(commits[0]!.revision)
    await expectStoredLive(m, session)
    detach()
  })

  it('P-037 a session live before the plugin loads is bound on load; flush stores 0..3', async () => {
    const m = await h.mount({}, { backend: false })
    const { session, detach } = m.live('s1')
    openLiveTurn(session, 1)
    session.append('assistant/chunk', { turn: 1, step: 1, chunk: { type: 'text-delta', index: 0, text: 'x' } })
    await m.load()
    expect(await m.sessions.flush(session)).toBe(true)
    await expectStoredLive(m, session)
    expect((await m.persistence.readFrom('s1', 0)).map(e => e.seq)).toEqual([0, 1, 2, 3])
    detach()
  })

  itUnless(!durable)('P-038 unload, two appends, reload: the session is adopted and the stored log is contiguous and complete', async () => {
    const m = await h.mount()
    const { session, detach } = m.live('s1')
    openLiveTurn(session, 1)
    await m.sessions.flush(session)
    await m.unload()
    session.append('assistant/chunk', { turn: 1, step: 1, chunk: { type: 'text-delta', index: 0, text: 'a' } })
    session.append('assistant/chunk', { turn: 1, step: 1, chunk: { type: 'text-delta', index: 0, text: 'b' } })
    await m.load()
    closeLiveTurn(session, 1)
    await m.sessions.flush(session)
    await expectStoredLive(m, session)
    const seqs = m.committed.filter(c => c.sessionId === 's1' && c.source === 'live').map(c => [c.fromSeq, c.toSeq])
    for (let i = 1; i < seqs.length; i++) expect(seqs[i]![0]).toBe(seqs[i - 1]![1])
    detach()
  })

  itUnless(!durable || !options.capabilities.damage || !options.capabilities.tornTail)('P-039 reload with an open turn and a torn tail: the tail is cut without closers; the live turn/end is stored later', async () => {
    const m = await h.mount()
    const { session, detach } = m.live('s1')
    openLiveTurn(session, 1)
    await m.sessions.flush(session)
    session.append('assistant/chunk', { turn: 1, step: 1, chunk: { type: 'text-delta', index: 0, text: 'torn' } })
    await m.sessions.flush(session)
    await m.unload()
    const length = await h.damage.tearLastRecord('s1', Number.MAX_SAFE_INTEGER)
    await h.damage.tearLastRecord('s1', Math.floor(length / 2))
    await m.load()
    closeLiveTurn(session, 1, 2)
    await m.sessions.flush(session)
    await expectStoredLive(m, session)
    const stored = await m.persistence.readFrom('s1', 0)
    expect(stored.filter(e => e.type === 'turn/end').map(e => e.data)).toEqual([{ turn: 1, reason: { kind: 'completed' } }])
    detach()
  })

  it('P-040 a new live session whose id has a stored log it does not extend: flush is SESSION_ALREADY_EXISTS; unchanged', async () => {
    const m = await h.mount()
    await m.store('s1', completeTurn(0, 1))
    const before = await storedState(m, 's1')
    const { session, detach } = m.live('s1')
    openLiveTurn(session, 7)
    await rejects(m.sessions.flush(session), 'SESSION_ALREADY_EXISTS')
    session.append('turn/end', { turn: 7, reason: { kind: 'completed' } })
    await rejects(m.sessions.flush(session), 'SESSION_ALREADY_EXISTS')
    await expectUnchanged(m, 's1', before)
    detach()
    expect((await m.persistence.inspect('s1')).claim).toBe('none')
  })

  it('P-153 a live session whose seed differs from the stored log in an earlier event (same seq, type and time) is not adopted: SESSION_ALREADY_EXISTS; unchanged', async () => {
    const m = await h.mount()
    const stored = completeTurn(0, 1)
    // The header a live session gets, so only the events can differ.
    const current = { version: SESSION_FORMAT_VERSION }
    await m.store('s1', stored, current)
    const before = await storedState(m, 's1')
    const seed = stored.map(e => ({ ...e }))
    const message = seed[1]!.data as { content: { type: string; text: string }[] }
    seed[1] = { ...seed[1]!, data: { ...message, content: [{ type: 'text', text: 'a prompt the model never saw' }] } } as never
    const { session, detach } = m.live('s1', { seed, meta: { createdAt: header('s1').createdAt, cwd: CWD } })
    expect(session.header).toEqual(header('s1', current))
    session.append('turn/start', { turn: 2 })
    await rejects(m.sessions.flush(session), 'SESSION_ALREADY_EXISTS')
    await expectUnchanged(m, 's1', before)
    detach()
  })

  it('P-041 session/created twice for one object stores no duplicates; committed events are the live objects', async () => {
    const m = await h.mount()
    const { session, detach } = m.live('s1')
    openLiveTurn(session, 1)
    m.app.emit(session, 'session/created', session)
    closeLiveTurn(session, 1, 4)
    m.app.emit(session, 'session/created', session)
    await m.sessions.flush(session)
    await expectStoredLive(m, session)
    const commits = m.committed.filter(c => c.sessionId === 's1')
    expect(commits.length).toBeGreaterThan(0)
    let cursor = 0
    for (const c of commits) {
      expect(c.fromSeq).toBe(cursor)
      expect(c.toSeq).toBe(c.fromSeq + c.events.length)
      c.events.forEach((e, i) => expect(e).toBe(session.events[c.fromSeq + i]))
      cursor = c.toSeq
    }
    expect(cursor).toBe(session.seq)
    detach()
  })
}
