import { afterEach, describe, expect, it, vi } from 'vitest'
import { ToolError } from '@logbook/tools'
import { boot, deferred, OPTIONS, ofType, shape, tick, tool, untilAborted } from './helpers.ts'

afterEach(() => {
  vi.useRealTimers()
})

/** The call/result events of a session as `call <id>` / `result <id> <code?>` lines, in log order. */
function calls(events: readonly { type: string; data: unknown }[]): string[] {
  return events.flatMap(event => {
    if (event.type === 'tool/call') return [`call ${(event.data as { callId: string }).callId}`]
    if (event.type !== 'tool/result') return []
    const data = event.data as { message: { source: { callId: string } }; error?: { code: string } }
    return [`result ${data.message.source.callId}${data.error === undefined ? '' : ` ${data.error.code}`}`]
  })
}

describe('tool scheduling', () => {
  it('L-095 calls [P1, P2, X, P3] with P2 finishing first → results in model order, X alone', async () => {
    const p1 = deferred<string>()
    const order: string[] = []
    const { app } = await boot({
      script: [
        { toolCalls: [
          { id: 'P1', name: 'p1', arguments: {} }, { id: 'P2', name: 'p2', arguments: {} },
          { id: 'X', name: 'x', arguments: {} }, { id: 'P3', name: 'p1', arguments: {} },
        ] },
        { text: 'done', repeat: true },
      ],
      tools: [
        tool('p1', { concurrency: 'parallel-safe', execute: async (_a, { callId }) => {
          order.push(`start ${callId}`)
          if (callId === 'P1') {
            const text = await p1.promise
            order.push('end P1')
            return text
          }
          return 'quick'
        } }),
        tool('p2', { concurrency: 'parallel-safe', execute: async () => {
          order.push('start P2')
          order.push('end P2')
          setTimeout(() => p1.resolve('slow'), 5)
          return 'p2'
        } }),
        tool('x', { execute: () => {
          order.push('start X')
          return 'x'
        } }),
      ],
    })
    const agent = await app.agents.create({ sessionId: 's1', options: OPTIONS })
    await agent.send('go')
    expect(calls(agent.session.events)).toEqual(['call P1', 'call P2', 'result P1', 'result P2', 'call X', 'result X', 'call P3', 'result P3'])
    expect(order).toEqual(['start P1', 'start P2', 'end P2', 'end P1', 'start X', 'start P3'])
  })

  it('runs at most maxParallelToolCalls bodies of a group at once, rolling', async () => {
    let active = 0
    let peak = 0
    const { app } = await boot({
      script: [
        { toolCalls: ['a', 'b', 'c', 'd', 'e'].map(id => ({ id, name: 'p', arguments: {} })) },
        { text: 'done' },
      ],
      tools: [tool('p', { concurrency: 'parallel-safe', execute: async () => {
        active++
        peak = Math.max(peak, active)
        await tick(2)
        active--
        return 'ok'
      } })],
      config: { maxParallelToolCalls: 2 },
    })
    const agent = await app.agents.create({ sessionId: 's1', options: OPTIONS })
    await agent.send('go')
    expect(peak).toBe(2)
    expect(calls(agent.session.events)).toEqual(['call a', 'call b', 'call c', 'call d', 'call e', 'result a', 'result b', 'result c', 'result d', 'result e'])
  })

  it('a tool outside options.tools is UNKNOWN_TOOL and its body never runs; failed outcomes are logged with error {name, code}', async () => {
    const body = vi.fn(() => 'ran')
    const { app } = await boot({
      script: [{ toolCalls: [{ id: 'c1', name: 'hidden', arguments: {} }, { id: 'c2', name: 'read', arguments: '{' }] }, { text: 'ok' }],
      tools: [tool('hidden', { execute: body }), tool('read')],
    })
    const agent = await app.agents.create({ sessionId: 's1', options: { ...OPTIONS, tools: ['read'] } })
    await agent.send('go')
    const results = ofType(agent.session, 'tool/result')
    expect(results.map(r => r.data.error)).toEqual([
      { name: 'ToolError', code: 'UNKNOWN_TOOL' },
      { name: 'ToolError', code: 'INVALID_ARGS' },
    ])
    expect(results[0]!.data.message.content[0].content).toEqual([{ type: 'text', text: 'Error: unknown tool "hidden"' }])
    expect(results[0]!.data.message.content[0].isError).toBe(true)
    expect(body).not.toHaveBeenCalled()
    expect(ofType(agent.session, 'request/header')[0]!.data.header.tools!.map(t => t.name)).toEqual(['read'])
  })

  it('L-091 ToolError(\'x\', \'E1\') → logged tool/result.error is exactly {name, code}; the text is "Error: x"; meta is kept', async () => {
    const { app } = await boot({
      script: [{ toolCalls: [{ id: 'c1', name: 'coded', arguments: {} }, { id: 'c2', name: 'meta', arguments: {} }] }, { text: 'ok' }],
      tools: [
        tool('coded', { execute: () => { throw new ToolError('x', 'E1') } }),
        tool('meta', { execute: () => ({ content: 'fine', meta: { exitCode: 0 } }) }),
      ],
    })
    const agent = await app.agents.create({ sessionId: 's1', options: OPTIONS })
    await agent.send('go')
    const [coded, meta] = ofType(agent.session, 'tool/result')
    expect(coded!.data).toEqual({
      turn: 1, step: 1, error: { name: 'ToolError', code: 'E1' },
      message: {
        id: `tool-result-${coded!.seq}`, role: 'user', source: { kind: 'tool', callId: 'c1' },
        content: [{ type: 'tool-result', toolCallId: 'c1', content: [{ type: 'text', text: 'Error: x' }], isError: true }],
      },
    })
    expect(meta!.data.error).toBeUndefined()
    expect(meta!.data.meta).toEqual({ exitCode: 0 })
    expect(meta!.data.message.content[0]).toEqual({ type: 'tool-result', toolCallId: 'c2', content: [{ type: 'text', text: 'fine' }], isError: false })
  })

  it('a tool returning a part the log would refuse gets a TOOL_ERROR result; the turn goes on', async () => {
    const { app } = await boot({
      script: [{ toolCalls: [{ id: 'c1', name: 'bad', arguments: {} }] }, { text: 'ok', match: { afterTool: 'bad' } }],
      tools: [tool('bad', { execute: () => [{ type: 'text', text: 'a', cache: true }] as never })],
    })
    const agent = await app.agents.create({ sessionId: 's1', options: OPTIONS })
    expect((await agent.send('go')).reason).toEqual({ kind: 'completed' })
    const [result] = ofType(agent.session, 'tool/result')
    expect(result!.data.error).toEqual({ name: 'ToolError', code: 'TOOL_ERROR' })
    expect(result!.data.message.content[0].content).toEqual([{ type: 'text', text: 'Error: tool "bad" returned an invalid result: content[0].cache is not allowed' }])
  })

  it('a CHECKPOINT_FAILED tool outcome ends the turn with that error; later calls get ABORTED_BEFORE_DISPATCH', async () => {
    const { app } = await boot({
      script: [{ toolCalls: [{ id: 'c1', name: 'a', arguments: {} }, { id: 'c2', name: 'a', arguments: {} }, { id: 'c3', name: 'a', arguments: {} }] }],
      tools: [tool('a')],
    })
    app.on('tools/before-execute', async execution => {
      if (execution.callId === 'c2') throw Object.assign(new Error('checkpoint failed: disk full'), { code: 'CHECKPOINT_FAILED', name: 'CheckpointError' })
    })
    const agent = await app.agents.create({ sessionId: 's1', options: OPTIONS })
    const result = await agent.send('go')
    expect(calls(agent.session.events)).toEqual([
      'call c1', 'result c1', 'call c2', 'result c2 CHECKPOINT_FAILED', 'call c3', 'result c3 ABORTED_BEFORE_DISPATCH',
    ])
    expect(result.reason).toEqual({ kind: 'error', error: { code: 'CHECKPOINT_FAILED', message: 'checkpoint failed: disk full' } })
    expect(shape(agent.session.events).slice(-2)).toEqual(['step/end', 'turn/end'])
  })
})

describe('cancelling tools', () => {
  it('L-101 cancel while the first of three calls runs → its outcome recorded; calls 2 and 3 get tool/call + ABORTED_BEFORE_DISPATCH', async () => {
    const started = deferred()
    const { app } = await boot({
      script: [{ toolCalls: [{ id: 'c1', name: 'slow', arguments: {} }, { id: 'c2', name: 'slow', arguments: {} }, { id: 'c3', name: 'slow', arguments: {} }] }],
      tools: [untilAborted('slow', started, 'stopped by the signal')],
    })
    const agent = await app.agents.create({ sessionId: 's1', options: OPTIONS })
    const sent = agent.send('go')
    await started.promise
    agent.cancel()
    const result = await sent
    expect(calls(agent.session.events)).toEqual([
      'call c1', 'result c1 ABORTED', 'call c2', 'result c2 ABORTED_BEFORE_DISPATCH', 'call c3', 'result c3 ABORTED_BEFORE_DISPATCH',
    ])
    const results = ofType(agent.session, 'tool/result')
    expect(results[1]!.data.error).toEqual({ name: 'AbortedBeforeDispatch', code: 'ABORTED_BEFORE_DISPATCH' })
    expect(results[1]!.data.message.content[0].content).toEqual([{ type: 'text', text: 'Error: tool call aborted before dispatch' }])
    expect(results[1]!.sourceEventSeqs).toEqual([ofType(agent.session, 'tool/call')[1]!.seq])
    expect(shape(agent.session.events).slice(-2)).toEqual(['step/end', 'turn/end'])
    expect(result.reason).toEqual({ kind: 'aborted', reason: { kind: 'user' } })
  })

  it('L-102 [ft] a tool ignoring the signal beyond toolCancelGraceMs → TOOL_OUTCOME_UNKNOWN; the turn closes; the late result is discarded with a warning', async () => {
    vi.useFakeTimers()
    const started = deferred()
    const release = deferred<string>()
    const { app, logs } = await boot({
      script: [{ toolCalls: [{ id: 'c1', name: 'stubborn', arguments: {} }] }],
      tools: [tool('stubborn', { execute: () => {
        started.resolve()
        return release.promise
      } })],
      config: { toolCancelGraceMs: 1000 },
    })
    const agent = await app.agents.create({ sessionId: 's1', options: OPTIONS })
    const sent = agent.send('go')
    await started.promise
    agent.cancel('parent')
    await vi.advanceTimersByTimeAsync(999)
    expect(ofType(agent.session, 'tool/result')).toHaveLength(0)
    await vi.advanceTimersByTimeAsync(1)
    const result = await sent
    const [res] = ofType(agent.session, 'tool/result')
    expect(res!.data.error).toEqual({ name: 'ToolOutcomeUnknownError', code: 'TOOL_OUTCOME_UNKNOWN' })
    expect(res!.data.message.content[0].content).toEqual([{ type: 'text', text: 'Error: tool did not stop after cancellation; its outcome is unknown' }])
    expect(result.reason).toEqual({ kind: 'aborted', reason: { kind: 'parent' } })
    const count = agent.session.seq
    release.resolve('finally done')
    await vi.advanceTimersByTimeAsync(0)
    expect(agent.session.seq).toBe(count)
    expect(logs.some(line => line.includes('tool stubborn (call c1) finished after its outcome was recorded as unknown; result discarded'))).toBe(true)
  })
})
