import { describe, expect, it } from 'vitest'
import { boot, OPTIONS, ofType, rejection, shape, tool } from './helpers.ts'

const script = [
  { toolCalls: [{ id: 'c1', name: 'read', arguments: {} }], match: { lastUserIncludes: 'read' } },
  { text: 'done', repeat: true },
]

async function parentWithTurn(memory: string) {
  const env = await boot({ memory, script, tools: [tool('read')] })
  const parent = await env.app.agents.create({ sessionId: 'p', options: { ...OPTIONS, maxTokens: 64 } })
  await parent.send('read it')
  return { ...env, parent }
}

describe('fork', () => {
  it('L-106 fork inside an open turn → the child ends with forked closers; the parent is unchanged', async () => {
    const { app, parent } = await parentWithTurn('l106a')
    const count = parent.session.seq
    const at = ofType(parent.session, 'tool/call')[0]!.seq
    const child = await app.agents.fork({ sourceSessionId: 'p', at })
    expect(child.id).toBe('p-fork-1')
    expect(parent.session.seq).toBe(count)
    const events = child.session.events
    expect(events.slice(0, at + 1)).toEqual(parent.session.events.slice(0, at + 1))
    expect(shape(events, at + 1)).toEqual(['session/end-seed', 'tool/result', 'step/end', 'turn/end'])
    expect(events[at + 1]!.data).toEqual({ inherited: true })
    expect(events.at(-1)!.data).toEqual({ turn: 1, reason: { kind: 'forked' } })
    expect((events[at + 2]!.data as { error: unknown }).error).toEqual({ name: 'ToolOutcomeUnknownError', code: 'TOOL_OUTCOME_UNKNOWN' })
    expect(child.session.header).toMatchObject({ parentSession: 'p', isSeeded: true, seedLength: at + 1 })
    expect(child.options).toEqual({ provider: 'scripted', model: 'm1', maxTokens: 64, tools: ['read'] })
    const next = await child.send('continue')
    expect(next.turn).toBe(2)
    expect(ofType(child.session, 'request/header').map(h => h.data.reason)).toEqual(['initial', 'resume'])
    const second = await app.agents.fork({ sourceSessionId: 'p' })
    expect(second.id).toBe('p-fork-2')
    expect(second.session.events.length).toBe(count + 1)
  })

  it('L-106 an existing child id → SESSION_ALREADY_EXISTS even with a bad boundary; an unknown source → SESSION_NOT_FOUND', async () => {
    const { app, parent } = await parentWithTurn('l106b')
    await app.agents.fork({ sourceSessionId: 'p', childSessionId: 'kid' })
    const count = parent.session.seq
    expect(await rejection(app.agents.fork({ sourceSessionId: 'nope', childSessionId: 'kid', at: -5 }))).toMatchObject({
      name: 'SessionForkError', code: 'SESSION_ALREADY_EXISTS', message: 'session "kid" already exists',
    })
    expect(await rejection(app.agents.fork({ sourceSessionId: 'nope', at: -5 }))).toMatchObject({
      code: 'SESSION_NOT_FOUND', message: 'session "nope" not found',
    })
    expect(await rejection(app.agents.fork({ sourceSessionId: 'p', at: count }))).toMatchObject({
      code: 'INVALID_BOUNDARY', message: `fork boundary ${count} is beyond the last seq ${count - 1} of session "p"`,
    })
    expect(await rejection(app.agents.fork({ sourceSessionId: 'p', childSessionId: 'a/b' }))).toMatchObject({ code: 'INVALID_SESSION_ID' })
    expect(parent.session.seq).toBe(count)
  })

  it('L-106 a stored-only source gives the same child events as a live fork, and its stored log is untouched', async () => {
    const { app, parent } = await parentWithTurn('l106c')
    const at = ofType(parent.session, 'tool/call')[0]!.seq
    const live = await app.agents.fork({ sourceSessionId: 'p', at, childSessionId: 'live-child' })
    await parent.dispose()
    expect(app.sessions.get(parent.id)).toBeUndefined()
    const before = await app.sessionPersistence.inspect('p')
    const stored = await app.agents.fork({ sourceSessionId: 'p', at, childSessionId: 'stored-child' })
    expect(JSON.stringify(stored.session.events)).toBe(JSON.stringify(live.session.events))
    const after = await app.sessionPersistence.inspect('p')
    expect(after.revision).toBe(before.revision)
    expect(after.claim).toBe('none')
    // A stored child id counts as existing too.
    await stored.dispose()
    expect(await rejection(app.agents.fork({ sourceSessionId: 'p', childSessionId: 'stored-child' }))).toMatchObject({ code: 'SESSION_ALREADY_EXISTS' })
  })
})

describe('fork ids and boundaries', () => {
  it('the default child id is the smallest <source>-fork-<n> that is neither live nor stored', async () => {
    const { app } = await parentWithTurn('fork-ids')
    const first = await app.agents.fork({ sourceSessionId: 'p' })
    expect(first.id).toBe('p-fork-1')
    await first.send('read more')
    await first.dispose()
    expect(app.sessions.get(first.id)).toBeUndefined()
    // p-fork-1 is only stored now: it still counts as taken.
    const second = await app.agents.fork({ sourceSessionId: 'p' })
    expect(second.id).toBe('p-fork-2')
  })

  it('01 §7 order: an invalid source id is SESSION_NOT_FOUND; a bad boundary is INVALID_BOUNDARY with 01\'s message', async () => {
    const { app, parent } = await parentWithTurn('fork-order')
    expect(await rejection(app.agents.fork({ sourceSessionId: 'not/an/id' }))).toMatchObject({
      name: 'SessionForkError', code: 'SESSION_NOT_FOUND', message: 'session "not/an/id" not found',
    })
    expect(await rejection(app.agents.fork({ sourceSessionId: 'p', at: 1.5 }))).toMatchObject({
      name: 'SessionForkError', code: 'INVALID_BOUNDARY', message: 'fork boundary must be a non-negative safe integer, got 1.5',
    })
    expect(await rejection(app.agents.fork({ sourceSessionId: 'p', options: { maxTokens: 0 } }))).toMatchObject({
      code: 'INVALID_OPTIONS', message: 'invalid agent options: maxTokens must be a positive safe integer',
    })
    await parent.dispose()
    // The same checks for a stored-only source.
    expect(await rejection(app.agents.fork({ sourceSessionId: 'p', at: -1 }))).toMatchObject({
      code: 'INVALID_BOUNDARY', message: 'fork boundary must be a non-negative safe integer, got -1',
    })
    expect(app.sessions.list()).toEqual([])
  })
})
