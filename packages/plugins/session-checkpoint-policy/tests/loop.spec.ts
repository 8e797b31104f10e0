import { describe, expect, it, vi } from 'vitest'
import type { SessionEvent } from '@logbook/session'
import type { CheckpointPassedEvent } from '../src/index.ts'
import { bootPolicy, diskFull, OPTIONS, shape } from './helpers.ts'

const toolThenText = [
  { toolCalls: [{ id: 'c1', name: 'probe', arguments: {} }], match: { lastUserIncludes: 'probe' } },
  { text: 'done', repeat: true },
]

describe('the policy through the loop', () => {
  it('P-109 every event of step k, its step/end included, is durable before step k+1\'s step/start', async () => {
    const env = await bootPolicy({
      store: 'p109a', script: toolThenText,
      tools: [{ name: 'probe', description: '', parameters: { type: 'object' }, execute: () => 'ok' }],
    })
    const atStepStart: [number, number][] = []
    env.app.on('session/event', (_s, event: SessionEvent) => {
      if (event.type === 'step/start') atStepStart.push([event.seq, env.cursor('s1')])
    })
    const passed: CheckpointPassedEvent[] = []
    env.app.on('checkpoint/passed', event => void passed.push(event))
    const agent = await env.app.agents.create({ sessionId: 's1', options: OPTIONS })
    await agent.send('probe it')
    expect(atStepStart).toHaveLength(2)
    for (const [seq, cursor] of atStepStart) expect(cursor).toBe(seq)
    expect(passed.map(p => p.point)).toEqual(['step-boundary', 'model-request', 'tool-body', 'step-boundary', 'model-request'])
    const events = agent.session.events
    for (const event of passed) {
      const next = events[event.requiredSeq + 1]!
      const expected = { 'step-boundary': 'step/start', 'model-request': 'assistant/chunk', 'tool-body': 'tool/result' }[event.point]
      expect(next.type).toBe(expected)
    }
    expect(env.logs.filter(line => line.includes('invariant'))).toEqual([])
  })

  it('P-109 a failed step-boundary flush → no step/start, turn/end {error CHECKPOINT_FAILED}', async () => {
    const env = await bootPolicy({ store: 'p109b', script: [{ text: 'never' }] })
    env.app.on('session/flush', () => {
      throw diskFull()
    })
    const agent = await env.app.agents.create({ sessionId: 's1', options: OPTIONS })
    const result = await agent.send('hi')
    expect(shape(agent.session.events)).toEqual(['turn/start', 'user/message', 'turn/end'])
    expect(result.reason).toEqual({
      kind: 'error',
      error: { code: 'CHECKPOINT_FAILED', message: 'session "s1": checkpoint before the next step failed: disk full' },
    })
  })

  it('L-107 a failed flush before the request → step/end, turn/end {error CHECKPOINT_FAILED}; the adapter is not called', async () => {
    const env = await bootPolicy({ store: 'l107', script: [], policy: { stepBoundaries: false } })
    const adapter = vi.fn()
    env.app.llm.register({ provider: 'spy', stream: adapter as never })
    env.app.on('session/flush', () => {
      throw diskFull()
    })
    const agent = await env.app.agents.create({ sessionId: 's1', options: { provider: 'spy', model: 'm' } })
    const result = await agent.send('hi')
    expect(shape(agent.session.events)).toEqual([
      'turn/start', 'user/message', 'step/start', 'request/header', 'request/context', 'chunks', 'step/end', 'turn/end',
    ])
    expect(result.reason).toEqual({
      kind: 'error',
      error: { code: 'CHECKPOINT_FAILED', message: 'session "s1": checkpoint before the model request failed: disk full' },
    })
    expect(adapter).not.toHaveBeenCalled()
  })

  it('each point can be switched off: with all three off a turn with a tool call never flushes', async () => {
    const env = await bootPolicy({
      store: 'off', script: toolThenText,
      tools: [{ name: 'probe', description: '', parameters: { type: 'object' }, execute: () => 'ok' }],
      policy: { modelRequests: false, toolBodies: false, stepBoundaries: false },
    })
    let flushes = 0
    env.app.on('session/flush', () => void flushes++)
    const passed: CheckpointPassedEvent[] = []
    env.app.on('checkpoint/passed', event => void passed.push(event))
    const agent = await env.app.agents.create({ sessionId: 's1', options: OPTIONS })
    expect((await agent.send('probe it')).reason).toEqual({ kind: 'completed' })
    expect(flushes).toBe(0)
    expect(passed).toEqual([])
    expect(env.cursor('s1')).toBe(0)
  })

  it('a failed tool-body flush → result CHECKPOINT_FAILED, later calls ABORTED_BEFORE_DISPATCH, turn/end {error}', async () => {
    let failing = false
    const body = vi.fn(() => 'ran')
    const env = await bootPolicy({
      store: 'toolfail',
      script: [{ toolCalls: [{ id: 'c1', name: 'probe', arguments: {} }, { id: 'c2', name: 'probe', arguments: {} }] }],
      tools: [{ name: 'probe', description: '', parameters: { type: 'object' }, execute: body }],
      policy: { stepBoundaries: false, modelRequests: false },
    })
    env.app.on('session/flush', () => {
      if (failing) throw diskFull()
    })
    env.app.on('session/event', (_s, event: SessionEvent) => {
      if (event.type === 'tool/call') failing = true
    })
    const agent = await env.app.agents.create({ sessionId: 's1', options: OPTIONS })
    const result = await agent.send('go')
    const results = agent.session.events.filter((e): e is SessionEvent<'tool/result'> => e.type === 'tool/result')
    expect(results.map(r => r.data.error)).toEqual([
      { name: 'CheckpointError', code: 'CHECKPOINT_FAILED' },
      { name: 'AbortedBeforeDispatch', code: 'ABORTED_BEFORE_DISPATCH' },
    ])
    expect(body).not.toHaveBeenCalled()
    expect(result.reason).toMatchObject({ kind: 'error', error: { code: 'CHECKPOINT_FAILED' } })
  })
})

describe('@logbook/session-checkpoint-policy/invariant', () => {
  it('P-113 checkpoint/passed before the cursor passed requiredSeq, or a tool/call not below it → an invariant violation', async () => {
    const env = await bootPolicy({ store: 'p113' })
    const session = env.app.sessions.create('s1' as never)
    session.append('turn/start', { turn: 1 })
    session.append('step/start', { turn: 1, step: 1 })
    await env.app.sessions.flush(session)
    env.app.emit('checkpoint/passed', { sessionId: 's1', point: 'step-boundary', requiredSeq: 1 })
    expect(env.logs.filter(line => line.includes('session-checkpoint-policy-invariant'))).toEqual([])
    env.app.emit('checkpoint/passed', { sessionId: 's1', point: 'model-request', requiredSeq: 2 })
    env.app.emit('checkpoint/passed', { sessionId: 's1', point: 'tool-body', requiredSeq: 1, callId: 'c9' })
    const errors = env.logs.filter(line => line.includes('session-checkpoint-policy-invariant:'))
    expect(errors).toHaveLength(2)
    expect(errors[0]).toContain('session "s1": checkpoint/passed (model-request) requires seq 2 durable; the durable cursor is 2')
    expect(errors[1]).toContain('session "s1": checkpoint/passed for call c9 has no tool/call')
  })

  it('forgets a cursor at persistence/released: a re-created id is judged on its own commits', async () => {
    const env = await bootPolicy({ store: 'released' })
    const released: string[] = []
    env.app.on('persistence/released', event => void released.push(event.sessionId))
    const first = env.app.sessions.prepare('s1' as never)
    const detach = env.app.sessions.enter(first)
    env.app.sessions.announce(first)
    first.append('turn/start', { turn: 1 })
    first.append('step/start', { turn: 1, step: 1 })
    await env.app.sessions.flush(first)
    detach()
    await vi.waitFor(() => expect(released).toContain('s1'))
    const { revision } = await env.app.sessionPersistence.inspect('s1')
    await env.app.sessionPersistence.delete('s1', { confirm: 'delete-session', sessionId: 's1', revision })
    const second = env.app.sessions.create('s1' as never)
    second.append('turn/start', { turn: 1 })
    // nothing of the new incarnation is durable yet: the old writer's cursor (2) must not vouch for seq 0
    env.app.emit('checkpoint/passed', { sessionId: 's1', point: 'step-boundary', requiredSeq: 0 })
    const errors = env.logs.filter(line => line.includes('session-checkpoint-policy-invariant:'))
    expect(errors).toHaveLength(1)
    expect(errors[0]).toContain('session "s1": checkpoint/passed (step-boundary) requires seq 0 durable; the durable cursor is 0')
    await env.app.sessions.flush(second)
    env.app.emit('checkpoint/passed', { sessionId: 's1', point: 'step-boundary', requiredSeq: 0 })
    expect(env.logs.filter(line => line.includes('session-checkpoint-policy-invariant:'))).toHaveLength(1)
  })
})
