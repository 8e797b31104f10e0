import { Context } from '@deepseek-ai/cordis'
import { beforeEach, describe, expect, it } from 'vitest'
import SessionStore, {
  noRuntimeInvariant, SessionError, SessionId, SessionInvariantError, type Session, type SessionEvent,
} from '../src/index.ts'
import * as invariant from '../src/invariant.ts'
import { APPEND, appendAs, plainAssistant, plainUser, thrown } from './harness.ts'

const S = SessionId('s')

const toolMsg = (id: string, callId: string, text = 'done', isError?: boolean) => ({
  id, role: 'user', source: { kind: 'tool', callId },
  content: [{ type: 'tool-result', toolCallId: callId, content: [{ type: 'text', text }], ...(isError === undefined ? {} : { isError }) }],
})
const chunk = (turn: number, step: number, text = 'x') => ({ turn, step, chunk: { type: 'text-delta', index: 0, text } })

/** The append is vetoed with exactly this §9 detail and leaves the log as it was. */
function expectVeto(session: Session, detail: string, type: string, data: unknown, opts?: unknown): void {
  const view = session.events
  const error = thrown(() => appendAs(session, type, data, opts)) as SessionError
  expect(error).toBeInstanceOf(SessionInvariantError)
  expect(error.name).toBe('SessionInvariantError')
  expect({ code: error.code, message: error.message }).toEqual({ code: 'SESSION_INVARIANT', message: `session "${session.id}" invariant: ${detail}` })
  expect(session.events).toBe(view)
}

let app: Context
let store: SessionStore

beforeEach(async () => {
  app = new Context()
  await app.plugin(SessionStore)
  store = app.sessions
})

async function withCompanion(): Promise<Session> {
  await app.plugin(invariant)
  return store.create(S)
}

describe('session invariant companion', () => {
  it('exports the §9 plugin shape', () => {
    expect(invariant.name).toBe('session-invariant')
    expect(invariant.inject).toEqual(['sessions'])
    expect(typeof invariant.apply).toBe('function')
  })

  it('S-124 two turns in the loop order, with compaction and a summary replace between steps, pass', async () => {
    const s = await withCompanion()
    for (const type of ['compaction/start', 'compaction/summary', 'compaction/end']) store.registerEventType(type)
    appendAs(s, 'turn/start', { turn: 1 }) // 0
    appendAs(s, 'system/message', { id: 'sys', role: 'system', source: { kind: 'system' }, content: [{ type: 'text', text: 'be brief' }] }, APPEND) // 1
    appendAs(s, 'user/message', plainUser('u1'), APPEND) // 2
    appendAs(s, 'step/start', { turn: 1, step: 1 }) // 3
    appendAs(s, 'request/header', { header: { config: { provider: 'p', model: 'm' } }, reason: 'initial' }) // 4
    appendAs(s, 'request/context', { provider: 'p', model: 'm', contextWindow: 1000 }) // 5
    appendAs(s, 'assistant/chunk', chunk(1, 1, 'reading')) // 6
    appendAs(s, 'assistant/chunk', { turn: 1, step: 1, chunk: { type: 'finish', reason: 'tool-calls' } }) // 7
    appendAs(s, 'assistant/message', { turn: 1, step: 1, message: plainAssistant('a1', ['c1']) }, { surfaceOp: 'append', sourceEventSeqs: [6, 7] }) // 8
    appendAs(s, 'tool/call', { turn: 1, step: 1, callId: 'c1', name: 'read', arguments: '{}' }) // 9
    appendAs(s, 'tool/result', { turn: 1, step: 1, message: toolMsg('r1', 'c1') }, { surfaceOp: 'append', sourceEventSeqs: [9] }) // 10
    appendAs(s, 'step/end', { turn: 1, step: 1 }) // 11
    appendAs(s, 'compaction/start', { compactionId: 'k', turn: 1, trigger: 'pressure' }) // 12
    appendAs(s, 'compaction/summary', { compactionId: 'k', summary: 'did things' }) // 13
    appendAs(s, 'user/message', { id: 'compaction-k', role: 'user', source: { kind: 'plugin', plugin: 'compaction' }, content: [{ type: 'text', text: 'summary' }] },
      { surfaceOp: { op: 'replace', start: 2, end: 10 }, sourceEventSeqs: [12, 13, 2, 8, 10] }) // 14
    appendAs(s, 'compaction/end', { compactionId: 'k', turn: 1 }) // 15
    appendAs(s, 'step/start', { turn: 1, step: 2 }) // 16
    appendAs(s, 'assistant/chunk', chunk(1, 2, 'done')) // 17
    appendAs(s, 'assistant/message', { turn: 1, step: 2, message: plainAssistant('a2') }, { surfaceOp: 'append', sourceEventSeqs: [17] }) // 18
    appendAs(s, 'step/end', { turn: 1, step: 2 }) // 19
    appendAs(s, 'turn/end', { turn: 1, reason: { kind: 'completed' } }) // 20
    appendAs(s, 'turn/start', { turn: 2 })
    appendAs(s, 'user/message', plainUser('u2'), APPEND)
    appendAs(s, 'step/start', { turn: 2, step: 1 })
    appendAs(s, 'request/header', { header: { config: { provider: 'p', model: 'm2' } }, reason: 'change' })
    appendAs(s, 'assistant/chunk', chunk(2, 1))
    appendAs(s, 'assistant/message', { turn: 2, step: 1, message: plainAssistant('a3') }, { surfaceOp: 'append', sourceEventSeqs: [25] })
    appendAs(s, 'step/end', { turn: 2, step: 1 })
    appendAs(s, 'turn/end', { turn: 2, reason: { kind: 'completed' } })
    expect(s.seq).toBe(29)
    expect(s.surface.nodes).toEqual([1, 14, 18, 22, 26])
  })

  it('S-125 turn and step relations are enforced with their §9 details', async () => {
    const s = await withCompanion()
    expectVeto(s, 'turn/start expected turn 1, got 2', 'turn/start', { turn: 2 })
    expectVeto(s, 'turn/end 1 does not match open turn none', 'turn/end', { turn: 1, reason: { kind: 'completed' } })
    expectVeto(s, 'step/start in turn 1 but open turn is none', 'step/start', { turn: 1, step: 1 })
    appendAs(s, 'turn/start', { turn: 1 })
    expectVeto(s, 'turn/start 2 while turn 1 is open', 'turn/start', { turn: 2 })
    expectVeto(s, 'turn/start 1 while turn 1 is open', 'turn/start', { turn: 1 })
    expectVeto(s, 'turn/end 2 does not match open turn 1', 'turn/end', { turn: 2, reason: { kind: 'completed' } })
    expectVeto(s, 'assistant/chunk names turn 1/step 1 but open is turn 1/step none', 'assistant/chunk', chunk(1, 1))
    expectVeto(s, 'step/start expected step 1 in turn 1, got 2', 'step/start', { turn: 1, step: 2 })
    expectVeto(s, 'step/start in turn 2 but open turn is 1', 'step/start', { turn: 2, step: 1 })
    appendAs(s, 'step/start', { turn: 1, step: 1 })
    expectVeto(s, 'step/start 2 while step 1 is open', 'step/start', { turn: 1, step: 2 })
    expectVeto(s, 'turn/end 1 while step 1 is open', 'turn/end', { turn: 1, reason: { kind: 'completed' } })
    expectVeto(s, 'assistant/chunk names turn 1/step 2 but open is turn 1/step 1', 'assistant/chunk', chunk(1, 2))
    expectVeto(s, 'step/end names turn 2/step 1 but open is turn 1/step 1', 'step/end', { turn: 2, step: 1 })
    appendAs(s, 'step/end', { turn: 1, step: 1 })
    expectVeto(s, 'step/start expected step 2 in turn 1, got 1', 'step/start', { turn: 1, step: 1 })
    expectVeto(s, 'step/end names turn 1/step 1 but open is turn 1/step none', 'step/end', { turn: 1, step: 1 })
    appendAs(s, 'step/start', { turn: 1, step: 2 })
    appendAs(s, 'step/end', { turn: 1, step: 2 })
    appendAs(s, 'turn/end', { turn: 1, reason: { kind: 'completed' } })
    expectVeto(s, 'assistant/message names turn 1/step 2 but open is turn none/step none', 'assistant/message',
      { turn: 1, step: 2, message: plainAssistant('late') }, APPEND)
    expectVeto(s, 'turn/start expected turn 2, got 3', 'turn/start', { turn: 3 })
    appendAs(s, 'turn/start', { turn: 2 })
    appendAs(s, 'step/start', { turn: 2, step: 1 })
    expect(s.seq).toBe(8)
  })

  it('S-126 tool calls must be requested, started once and answered once; synthetic not-started results pass', async () => {
    const s = await withCompanion()
    appendAs(s, 'turn/start', { turn: 1 })
    appendAs(s, 'step/start', { turn: 1, step: 1 })
    expectVeto(s, 'tool/call c9 was not requested in turn 1/step 1', 'tool/call', { turn: 1, step: 1, callId: 'c9', name: 'read', arguments: '{}' })
    appendAs(s, 'assistant/message', { turn: 1, step: 1, message: plainAssistant('a1', ['c1', 'c2', 'c3']) }, APPEND)
    expectVeto(s, 'tool/result for c1 has no pending tool/call in this step', 'tool/result', { turn: 1, step: 1, message: toolMsg('r0', 'c1') }, APPEND)
    appendAs(s, 'tool/call', { turn: 1, step: 1, callId: 'c1', name: 'read', arguments: '{}' })
    expectVeto(s, 'tool/call c1 was already started in this step', 'tool/call', { turn: 1, step: 1, callId: 'c1', name: 'read', arguments: '{}' })
    appendAs(s, 'tool/result', { turn: 1, step: 1, message: toolMsg('r1', 'c1') }, { surfaceOp: 'append', sourceEventSeqs: [3] })
    expectVeto(s, 'tool/result for c1 has no pending tool/call in this step', 'tool/result', { turn: 1, step: 1, message: toolMsg('r1b', 'c1') }, APPEND)
    expectVeto(s, 'tool/call c1 was already started in this step', 'tool/call', { turn: 1, step: 1, callId: 'c1', name: 'read', arguments: '{}' })
    const notStarted = { name: 'ToolNotStartedError', code: 'TOOL_NOT_STARTED' }
    appendAs(s, 'tool/result', { turn: 1, step: 1, message: toolMsg('r2', 'c2', 'never ran', true), error: notStarted }, APPEND)
    expectVeto(s, 'tool/result for c2 has no pending tool/call in this step', 'tool/result',
      { turn: 1, step: 1, message: toolMsg('r2b', 'c2', 'never ran', true), error: notStarted }, APPEND)
    expectVeto(s, 'tool/result for c4 has no pending tool/call in this step', 'tool/result',
      { turn: 1, step: 1, message: toolMsg('r4', 'c4', 'never ran', true), error: notStarted }, APPEND)
    expectVeto(s, 'tool/result for c3 has no pending tool/call in this step', 'tool/result',
      { turn: 1, step: 1, message: toolMsg('r3', 'c3', 'never ran', false), error: notStarted }, APPEND)
    // Calls left unanswered at step/end are allowed; the sets are per step.
    appendAs(s, 'step/end', { turn: 1, step: 1 })
    appendAs(s, 'step/start', { turn: 1, step: 2 })
    expectVeto(s, 'tool/call c3 was not requested in turn 1/step 2', 'tool/call', { turn: 1, step: 2, callId: 'c3', name: 'read', arguments: '{}' })
  })

  it('S-127 todo and request records need an open turn; user messages and plugin events do not', async () => {
    const s = await withCompanion()
    store.registerEventType('plugin/x')
    expectVeto(s, 'todo/write outside any open turn', 'todo/write', { todos: [{ content: 'a', status: 'pending' }] })
    expectVeto(s, 'request/header outside any open turn', 'request/header', { header: { config: { provider: 'p', model: 'm' } }, reason: 'initial' })
    expectVeto(s, 'request/context outside any open turn', 'request/context', { provider: 'p', model: 'm' })
    appendAs(s, 'user/message', plainUser('u0'), APPEND)
    appendAs(s, 'plugin/x', { any: 'thing' })
    appendAs(s, 'turn/start', { turn: 1 })
    appendAs(s, 'todo/write', { todos: [{ content: 'a', status: 'pending' }] })
    appendAs(s, 'step/start', { turn: 1, step: 1 })
    appendAs(s, 'assistant/message', { turn: 1, step: 1, message: plainAssistant('a1', ['c1']) }, APPEND) // 5
    appendAs(s, 'tool/call', { turn: 1, step: 1, callId: 'c1', name: 'read', arguments: '{}' }) // 6
    appendAs(s, 'tool/result', { turn: 1, step: 1, message: toolMsg('r1', 'c1', 'a long output') }, { surfaceOp: 'append', sourceEventSeqs: [6] }) // 7
    appendAs(s, 'step/end', { turn: 1, step: 1 }) // 8
    // A pruned rewrite of the result, between steps but inside the turn.
    appendAs(s, 'tool/result', { turn: 1, step: 1, message: toolMsg('r1-pruned', 'c1', 'short') }, { surfaceOp: { op: 'replace', start: 7, end: 7 }, sourceEventSeqs: [7] }) // 9
    appendAs(s, 'turn/end', { turn: 1, reason: { kind: 'completed' } })
    expectVeto(s, 'tool/result replacement outside any open turn', 'tool/result', { turn: 1, step: 1, message: toolMsg('r1-again', 'c1', 's') },
      { surfaceOp: { op: 'replace', start: 9, end: 9 }, sourceEventSeqs: [9] })
    appendAs(s, 'user/message', plainUser('u1'), APPEND)
  })

  it('S-128 a vetoed candidate never advances the trace', async () => {
    await app.plugin(invariant)
    const s = store.create(S)
    const veto = new Error('later check says no')
    let armed = true
    store.addCheck((_session, event) => {
      if (armed && event.type === 'turn/start') throw veto
    })
    expect(thrown(() => appendAs(s, 'turn/start', { turn: 1 }))).toBe(veto)
    armed = false
    // Had the trace advanced, this would be "turn/start 1 while turn 1 is open" (or a seq mismatch).
    expect(appendAs(s, 'turn/start', { turn: 1 }).seq).toBe(0)

    // The same when the vetoing check runs before the companion's.
    const app2 = new Context()
    await app2.plugin(SessionStore)
    let armed2 = true
    app2.sessions.addCheck((_session, event) => {
      if (armed2 && event.type === 'turn/end') throw veto
    })
    await app2.plugin(invariant)
    const t = app2.sessions.create(S)
    appendAs(t, 'turn/start', { turn: 1 })
    expect(thrown(() => appendAs(t, 'turn/end', { turn: 1, reason: { kind: 'completed' } }))).toBe(veto)
    armed2 = false
    appendAs(t, 'turn/end', { turn: 1, reason: { kind: 'completed' } })
    appendAs(t, 'turn/start', { turn: 2 })
  })

  it('S-129 a seed that breaks a relation makes create throw and registers nothing', async () => {
    await app.plugin(invariant)
    const disposed: string[] = []
    app.on('session/disposed', session => void disposed.push(session.id))
    const seed = [
      { type: 'turn/start', seq: 0, time: 1, data: { turn: 1 } },
      { type: 'step/start', seq: 1, time: 1, data: { turn: 1, step: 2 } },
    ] as SessionEvent[]
    const error = thrown(() => store.create(SessionId('bad'), { seed })) as SessionError
    expect(error).toBeInstanceOf(SessionInvariantError)
    expect(error.message).toBe('session "bad" invariant: step/start expected step 1 in turn 1, got 2')
    expect(store.get(SessionId('bad'))).toBeUndefined()
    expect(store.list()).toEqual([])
    expect(disposed).toEqual(['bad'])
    // A consistent seed is caught up, and the trace continues from it.
    const ok = store.create(SessionId('ok'), { seed: [seed[0]!] })
    expectVeto(ok, 'turn/start 2 while turn 1 is open', 'turn/start', { turn: 2 })
    appendAs(ok, 'step/start', { turn: 1, step: 1 })
  })

  it('S-130 loading seeds traces from existing sessions; disposing removes the check; reloading rebuilds', async () => {
    const s = store.create(S)
    appendAs(s, 'turn/start', { turn: 1 })
    const fiber = app.plugin(invariant)
    await fiber
    expectVeto(s, 'turn/start 2 while turn 1 is open', 'turn/start', { turn: 2 })

    await fiber.dispose()
    appendAs(s, 'turn/end', { turn: 1, reason: { kind: 'completed' } })
    appendAs(s, 'turn/start', { turn: 5 }) // unchecked while the companion is unloaded

    // The log now breaks a relation, so loading the companion again fails.
    const failed = app.plugin(invariant)
    const error = await failed.then(() => undefined, (e: unknown) => e) as SessionError
    expect(error).toBeInstanceOf(SessionInvariantError)
    expect(error.message).toBe('session "s" invariant: turn/start expected turn 2, got 5')
    appendAs(s, 'turn/start', { turn: 9 }) // the failed load registered no check
    await failed.dispose()


    const reloaded = new Context()
    await reloaded.plugin(SessionStore)
    const u = reloaded.sessions.create(SessionId('u'))
    appendAs(u, 'turn/start', { turn: 1 })
    appendAs(u, 'turn/end', { turn: 1, reason: { kind: 'completed' } })
    const companion = reloaded.plugin(invariant)
    await companion
    expectVeto(u, 'turn/start expected turn 2, got 1', 'turn/start', { turn: 1 })
    await companion.restart()
    expectVeto(u, 'turn/start expected turn 2, got 1', 'turn/start', { turn: 1 })
    appendAs(u, 'turn/start', { turn: 2 })
    await companion.dispose()
    appendAs(u, 'turn/end', { turn: 2, reason: { kind: 'completed' } })
    appendAs(u, 'turn/start', { turn: 3 })
    await reloaded.plugin(invariant)
    expectVeto(u, 'turn/start 4 while turn 3 is open', 'turn/start', { turn: 4 })
  })

  it('rejects a session whose trace cannot be rebuilt at session/created', async () => {
    await app.plugin(invariant)
    const prepared = store.prepare(SessionId('p'))
    const detach = store.enter(prepared)
    appendAs(prepared, 'turn/end', { turn: 1, reason: { kind: 'completed' } }) // not checked before announce
    const error = thrown(() => store.announce(prepared)) as SessionError
    expect(error).toBeInstanceOf(SessionInvariantError)
    expect(error.message).toBe('session "p" invariant: turn/end 1 does not match open turn none')
    detach()
  })
})

describe('noRuntimeInvariant', () => {
  it('builds a named companion whose apply registers nothing', async () => {
    const companion = noRuntimeInvariant('llm-invariant')
    expect(companion.name).toBe('llm-invariant')
    expect(Object.isFrozen(companion)).toBe(true)
    const s = store.create(S)
    const fiber = app.plugin(companion)
    await fiber
    expect(fiber.state).toBe(2) // active
    // Nothing is checked: an append that the session companion would veto commits.
    appendAs(s, 'turn/end', { turn: 7, reason: { kind: 'completed' } })
    expect(s.seq).toBe(1)
    await fiber.dispose()
  })

  it('refuses an empty name', () => {
    expect(() => noRuntimeInvariant('')).toThrow(TypeError)
  })
})
