import { describe, expect, it } from 'vitest'
import type { Session } from '@logbook/session'
import { boot, OPTIONS, ofType, shape, tool } from './helpers.ts'

const readThenAnswer = [
  { toolCalls: [{ id: 'c1', name: 'read', arguments: { path: 'a' } }] },
  { match: { afterTool: 'read' }, text: 'done' },
]

describe('one turn', () => {
  it('L-093 prompt, one tool call, then text → the exact event sequence; the companions accept every append', async () => {
    const { app, logs } = await boot({ script: readThenAnswer, tools: [tool('read')] })
    const agent = await app.agents.create({ sessionId: 's1', options: OPTIONS })
    const result = await agent.send('read a')
    const s = agent.session
    expect(shape(s.events)).toEqual([
      'turn/start', 'user/message', 'step/start', 'request/header', 'request/context', 'chunks', 'assistant/message',
      'tool/call', 'tool/result', 'step/end', 'step/start', 'chunks', 'assistant/message', 'step/end', 'turn/end',
    ])
    expect(result).toEqual({ turn: 1, reason: { kind: 'completed' }, endSeq: s.seq - 1 })
    const [first, second] = ofType(s, 'assistant/message')
    for (const message of [first!, second!]) {
      const cited = message.sourceEventSeqs!.map(seq => s.events[seq]!)
      expect(cited.length).toBeGreaterThan(0)
      expect(cited.every(event => event.type === 'assistant/chunk' && event.data.step === message.data.step)).toBe(true)
      expect(message.sourceEventSeqs).toEqual(ofType(s, 'assistant/chunk').filter(c => c.data.step === message.data.step).map(c => c.seq))
      expect(message.data.message.id).toBe(`assistant-${message.seq}`)
    }
    expect(first!.data.message.content).toEqual([{ type: 'tool-call', id: 'c1', name: 'read', arguments: '{"path":"a"}' }])
    expect(first!.data.usage).toBeDefined()
    const [call] = ofType(s, 'tool/call')
    const [res] = ofType(s, 'tool/result')
    expect(call!.data).toEqual({ turn: 1, step: 1, callId: 'c1', name: 'read', arguments: '{"path":"a"}' })
    expect(res!.sourceEventSeqs).toEqual([call!.seq])
    expect(res!.data).toEqual({
      turn: 1, step: 1,
      message: {
        id: `tool-result-${res!.seq}`, role: 'user', source: { kind: 'tool', callId: 'c1' },
        content: [{ type: 'tool-result', toolCallId: 'c1', content: [{ type: 'text', text: 'read ok' }], isError: false }],
      },
    })
    expect(ofType(s, 'user/message')[0]!.data).toEqual({
      id: 'user-1', role: 'user', source: { kind: 'user' }, content: [{ type: 'text', text: 'read a' }],
    })
    expect(ofType(s, 'request/header')[0]!.data).toEqual({
      reason: 'initial',
      header: { config: { provider: 'scripted', model: 'm1' }, tools: [{ name: 'read', description: 'the read tool', parameters: { type: 'object' } }] },
    })
    expect(ofType(s, 'request/context')[0]!.data).toEqual({ provider: 'scripted', model: 'm1', contextWindow: 32768 })
    expect(s.deriveMessages().map(m => m.role)).toEqual(['user', 'assistant', 'user', 'assistant'])
    expect(logs.filter(line => line.includes('invariant'))).toEqual([])
    expect(agent.status).toBe('idle')
  })

  it('L-094 a fresh session with system → system/message is node 0; the request carries it as system, not in messages', async () => {
    const { app } = await boot({ script: [{ text: 'hi' }] })
    const seen: unknown[] = []
    app.on('llm/before-stream', request => void seen.push(request))
    const agent = await app.agents.create({ sessionId: 's1', options: { ...OPTIONS, system: 'Be brief.' } })
    await agent.send('hello')
    const s = agent.session
    expect(shape(s.events).slice(0, 3)).toEqual(['turn/start', 'system/message', 'user/message'])
    expect(s.surface.nodes[0]).toBe(1)
    expect(s.events[1]!.data).toEqual({ id: 'system-1', role: 'system', source: { kind: 'system' }, content: [{ type: 'text', text: 'Be brief.' }] })
    const request = seen[0] as { system?: string; messages: { role: string }[]; purpose: string; sessionId: string }
    expect(request.system).toBe('Be brief.')
    expect(request.messages.map(m => m.role)).toEqual(['user'])
    expect(request).toMatchObject({ purpose: 'turn', sessionId: 's1' })
  })

  it('a changed system replaces node 0 at the next turn start, citing it; an unchanged one appends nothing', async () => {
    const { app } = await boot({ script: [{ text: 'a', repeat: true }] })
    const agent = await app.agents.create({ sessionId: 's1', options: { ...OPTIONS, system: 'one' } })
    await agent.send('x')
    await agent.send('y')
    expect(ofType(agent.session, 'system/message')).toHaveLength(1)
    agent.options = { ...OPTIONS, system: 'two' }
    await agent.send('z')
    const systems = ofType(agent.session, 'system/message')
    expect(systems).toHaveLength(2)
    const replacement = systems[1]!
    expect(replacement.surfaceOp).toEqual({ op: 'replace', start: 1, end: 1 })
    expect(replacement.sourceEventSeqs).toEqual([1])
    expect(agent.session.events[replacement.seq - 1]!.type).toBe('turn/start')
    expect(agent.session.surface.nodes[0]).toBe(replacement.seq)
  })

  it('a system option on a surface whose node 0 is not a system message is ignored with one warning', async () => {
    const { app, logs } = await boot({ script: [{ text: 'a', repeat: true }] })
    const agent = await app.agents.create({ sessionId: 's1', options: OPTIONS })
    await agent.send('x')
    agent.options = { ...OPTIONS, system: 'late' }
    await agent.send('y')
    await agent.send('z')
    expect(ofType(agent.session, 'system/message')).toHaveLength(0)
    expect(logs.filter(line => line.includes('option system ignored'))).toHaveLength(1)
  })

  it('L-096 a model that always calls tools with maxSteps 2 → turn/end {max-steps} after the second step/end', async () => {
    const { app } = await boot({
      script: [{ toolCalls: [{ name: 'read', arguments: {} }], repeat: true }],
      tools: [tool('read')],
      config: { maxSteps: 2 },
    })
    const agent = await app.agents.create({ sessionId: 's1', options: OPTIONS })
    const result = await agent.send('loop')
    const tail = shape(agent.session.events).slice(-3)
    expect(tail).toEqual(['tool/result', 'step/end', 'turn/end'])
    expect(ofType(agent.session, 'step/start')).toHaveLength(2)
    expect(result.reason).toEqual({ kind: 'max-steps' })
  })

  it('L-097 finish max-tokens with calls → a message without tool-call blocks, no tool/call, turn/end {max-tokens}', async () => {
    const { app } = await boot({
      script: [{ text: 'partial', toolCalls: [{ id: 'c1', name: 'read', arguments: {} }], finish: 'max-tokens' }],
      tools: [tool('read')],
    })
    const agent = await app.agents.create({ sessionId: 's1', options: { ...OPTIONS, maxTokens: 16 } })
    const result = await agent.send('go')
    const s = agent.session
    expect(ofType(s, 'assistant/message')[0]!.data.message.content).toEqual([{ type: 'text', text: 'partial' }])
    expect(ofType(s, 'tool/call')).toHaveLength(0)
    expect(shape(s.events).slice(-3)).toEqual(['assistant/message', 'step/end', 'turn/end'])
    expect(result.reason).toEqual({ kind: 'max-tokens' })
  })

  it('L-098 headers: initial on the first request, none on an unchanged step, change when maxTokens changes; context once', async () => {
    const { app } = await boot({
      script: [{ toolCalls: [{ name: 'read', arguments: {} }] }, { text: 'a', repeat: true }],
      tools: [tool('read')],
    })
    const agent = await app.agents.create({ sessionId: 's1', options: OPTIONS })
    await agent.send('one')
    const headers = (s: Session) => ofType(s, 'request/header').map(h => [h.data.reason, h.data.header.config.maxTokens])
    expect(ofType(agent.session, 'step/start')).toHaveLength(2)
    expect(headers(agent.session)).toEqual([['initial', undefined]])
    agent.options = { ...OPTIONS, maxTokens: 99 }
    await agent.send('two')
    expect(headers(agent.session)).toEqual([['initial', undefined], ['change', 99]])
    expect(ofType(agent.session, 'request/context')).toHaveLength(1)
    const header = ofType(agent.session, 'request/header')[0]!
    const context = ofType(agent.session, 'request/context')[0]!
    expect(context.seq).toBe(header.seq + 1)
  })

  it('L-098 a new model logs change and a new request/context; a tool registered mid-session changes the header', async () => {
    const { app } = await boot({ script: [{ text: 'a', repeat: true }] })
    const agent = await app.agents.create({ sessionId: 's1', options: OPTIONS })
    await agent.send('one')
    agent.options = { provider: 'scripted', model: 'm2' }
    await agent.send('two')
    app.tools.register(tool('late'))
    await agent.send('three')
    expect(ofType(agent.session, 'request/header').map(h => h.data.reason)).toEqual(['initial', 'change', 'change'])
    expect(ofType(agent.session, 'request/context').map(c => c.data.model)).toEqual(['m1', 'm2'])
  })
})

describe('agent/pre-step', () => {
  it('runs before every step/start with the request it will make; a listener not calling next() ends the turn blocked', async () => {
    const { app } = await boot({ script: [{ toolCalls: [{ name: 'read', arguments: {} }] }, { text: 'a', repeat: true }], tools: [tool('read')] })
    const seen: unknown[] = []
    const dispose = app.on('agent/pre-step', (payload, next) => {
      seen.push({ turn: payload.turn, step: payload.step, request: payload.request, at: payload.session.seq })
      return next()
    })
    const agent = await app.agents.create({ sessionId: 's1', options: { ...OPTIONS, system: 'sys' } })
    await agent.send('x')
    expect(seen).toEqual([
      { turn: 1, step: 1, at: 3, request: { config: { provider: 'scripted', model: 'm1' }, system: 'sys', tools: [{ name: 'read', description: 'the read tool', parameters: { type: 'object' } }] } },
      { turn: 1, step: 2, at: expect.any(Number), request: expect.objectContaining({ system: 'sys' }) },
    ])
    dispose()
    app.on('agent/pre-step', () => undefined)
    const blocked = await agent.send('y')
    expect(blocked.reason).toEqual({ kind: 'blocked' })
    expect(shape(agent.session.events, agent.session.events.findLastIndex(e => e.type === 'turn/start'))).toEqual(['turn/start', 'user/message', 'turn/end'])
  })

  it('a throwing listener ends the turn error with its code, or HOOK_FAILED; no step opens', async () => {
    const { app } = await boot({ script: [{ text: 'a', repeat: true }] })
    const dispose = app.on('agent/pre-step', async () => {
      throw Object.assign(new Error('compaction could not close'), { code: 'COMPACTION_FAILED' })
    })
    const agent = await app.agents.create({ sessionId: 's1', options: OPTIONS })
    expect((await agent.send('x')).reason).toEqual({ kind: 'error', error: { code: 'COMPACTION_FAILED', message: 'compaction could not close' } })
    dispose()
    app.on('agent/pre-step', () => {
      throw new Error('boom')
    })
    expect((await agent.send('y')).reason).toEqual({ kind: 'error', error: { code: 'HOOK_FAILED', message: 'boom' } })
    expect(ofType(agent.session, 'step/start')).toHaveLength(0)
  })
})
