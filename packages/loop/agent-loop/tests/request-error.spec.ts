import { describe, expect, it, vi } from 'vitest'
import type { RequestErrorPayload } from '../src/index.ts'
import { boot, OPTIONS, ofType, shape } from './helpers.ts'

const failing = { text: 'partial answer', error: { code: 'RATE_LIMIT', message: 'slow down', afterChunks: 2 } } as const

describe('request errors', () => {
  it('L-099 an unhandled request error → step/end, turn/end {error}; its chunks stay; no assistant message', async () => {
    const { app } = await boot({ script: [failing] })
    const agent = await app.agents.create({ sessionId: 's1', options: OPTIONS })
    const result = await agent.send('go')
    const s = agent.session
    expect(shape(s.events)).toEqual(['turn/start', 'user/message', 'step/start', 'request/header', 'request/context', 'chunks', 'step/end', 'turn/end'])
    expect(ofType(s, 'assistant/chunk').map(c => c.data.chunk.type)).toEqual(['block-start', 'text-delta', 'finish'])
    expect(ofType(s, 'assistant/message')).toHaveLength(0)
    expect(result.reason).toEqual({ kind: 'error', error: { code: 'RATE_LIMIT', message: 'slow down' } })
  })

  it('L-099 a listener\'s retry repeats the request in the same step; the message cites only the second attempt\'s chunks', async () => {
    const { app } = await boot({ script: [failing, { text: 'second try' }] })
    const payloads: RequestErrorPayload[] = []
    app.on('agent/request-error', (payload, next) => {
      payloads.push(payload)
      return payload.attempt === 1 ? { kind: 'retry' } : next()
    })
    const agent = await app.agents.create({ sessionId: 's1', options: OPTIONS })
    const result = await agent.send('go')
    const s = agent.session
    expect(result.reason).toEqual({ kind: 'completed' })
    expect(shape(s.events)).toEqual([
      'turn/start', 'user/message', 'step/start', 'request/header', 'request/context', 'chunks', 'assistant/message', 'step/end', 'turn/end',
    ])
    const chunks = ofType(s, 'assistant/chunk')
    const finishes = chunks.filter(c => c.data.chunk.type === 'finish')
    expect(finishes.map(c => (c.data.chunk as { reason: string }).reason)).toEqual(['error', 'stop'])
    const [message] = ofType(s, 'assistant/message')
    expect(message!.sourceEventSeqs).toEqual(chunks.filter(c => c.seq > finishes[0]!.seq).map(c => c.seq))
    expect(message!.data.message.content).toEqual([{ type: 'text', text: 'second try' }])
    expect(payloads).toHaveLength(1)
    const { turn, step, attempt, error } = payloads[0]!
    expect({ turn, step, attempt, error }).toEqual({ turn: 1, step: 1, attempt: 1, error: { code: 'RATE_LIMIT', message: 'slow down' } })
    expect(payloads[0]!.agent).toBe(agent)
    expect(payloads[0]!.session).toBe(s)
    expect(payloads[0]!.signal).toBeInstanceOf(AbortSignal)
  })

  it('retries at most maxRequestRetries times; then the waterfall is no longer run', async () => {
    const { app } = await boot({ script: [{ ...failing, repeat: true }], config: { maxRequestRetries: 2 } })
    const listener = vi.fn((_payload: RequestErrorPayload) => ({ kind: 'retry' }) as const)
    app.on('agent/request-error', listener)
    const agent = await app.agents.create({ sessionId: 's1', options: OPTIONS })
    const result = await agent.send('go')
    expect(listener.mock.calls.map(([payload]) => payload.attempt)).toEqual([1, 2])
    expect(ofType(agent.session, 'assistant/chunk').filter(c => c.data.chunk.type === 'finish')).toHaveLength(3)
    expect(result.reason).toEqual({ kind: 'error', error: { code: 'RATE_LIMIT', message: 'slow down' } })
  })

  it('a throwing request-error listener fails the turn with its code, or HOOK_FAILED', async () => {
    const { app } = await boot({ script: [{ ...failing, repeat: true }] })
    const dispose = app.on('agent/request-error', () => {
      throw Object.assign(new Error('could not close'), { code: 'COMPACTION_FAILED' })
    })
    const agent = await app.agents.create({ sessionId: 's1', options: OPTIONS })
    expect((await agent.send('a')).reason).toEqual({ kind: 'error', error: { code: 'COMPACTION_FAILED', message: 'could not close' } })
    dispose()
    app.on('agent/request-error', async () => {
      throw new Error('nope')
    })
    expect((await agent.send('b')).reason).toEqual({ kind: 'error', error: { code: 'HOOK_FAILED', message: 'nope' } })
  })

  it('L-107 a CHECKPOINT_FAILED before the request → step/end, turn/end {error CHECKPOINT_FAILED}; adapter never called, no waterfall', async () => {
    const { app } = await boot({ script: [] })
    const adapter = vi.fn()
    app.llm.register({ provider: 'spy', stream: adapter as never })
    const listener = vi.fn()
    app.on('agent/request-error', listener)
    app.on('llm/before-stream', async () => {
      throw Object.assign(new Error('checkpoint failed before the model request: disk full'), { code: 'CHECKPOINT_FAILED' })
    })
    const agent = await app.agents.create({ sessionId: 's1', options: { provider: 'spy', model: 'm' } })
    const result = await agent.send('go')
    expect(shape(agent.session.events).slice(-3)).toEqual(['chunks', 'step/end', 'turn/end'])
    expect(result.reason).toEqual({ kind: 'error', error: { code: 'CHECKPOINT_FAILED', message: 'checkpoint failed before the model request: disk full' } })
    expect(adapter).not.toHaveBeenCalled()
    expect(listener).not.toHaveBeenCalled()
  })

  it('L-107 a CHECKPOINT_FAILED at pre-step → no step/start; turn/end {error CHECKPOINT_FAILED}', async () => {
    const { app } = await boot({ script: [{ text: 'never' }] })
    app.on('agent/pre-step', async () => {
      throw Object.assign(new Error('checkpoint failed at the step boundary'), { code: 'CHECKPOINT_FAILED' })
    })
    const agent = await app.agents.create({ sessionId: 's1', options: OPTIONS })
    const result = await agent.send('go')
    expect(shape(agent.session.events)).toEqual(['turn/start', 'user/message', 'turn/end'])
    expect(result.reason).toEqual({ kind: 'error', error: { code: 'CHECKPOINT_FAILED', message: 'checkpoint failed at the step boundary' } })
  })
})
