import type { RequestErrorDecision } from '@logbook/agent-loop'
import { isCompactionCheckpoint } from '@logbook/compaction'
import { CallId, MessageId } from '@logbook/session'
import { describe, expect, it } from 'vitest'
import { agent, boot, filler, ofType, shape, tool, warnings, windowOf, type ScriptEntry } from './helpers.ts'

const SUMMARY = 'Goal: answer. Work done: read.'
const OVERFLOW: ScriptEntry = { error: { code: 'CONTEXT_WINDOW_EXCEEDED', message: 'prompt is too long' } }
/** Large windows keep pressure compaction out of the way: only the overflow path acts. */
const LARGE = windowOf(1_000_000)

describe('overflow recovery', () => {
  it('L-063 a first request failing CONTEXT_WINDOW_EXCEEDED → an overflow bracket in that step, one retry starting with the checkpoint, completed', async () => {
    const env = await boot({
      script: [{ match: { purpose: 'compaction' }, text: SUMMARY }, { text: 'ok' }, OVERFLOW, { text: 'done' }],
      compaction: LARGE,
    })
    const a = await agent(env)
    await a.send(filler(400))
    const from = a.session.seq
    const result = await a.send('and now?')
    expect(result.reason).toEqual({ kind: 'completed' })
    expect(shape(a.session, from)).toEqual([
      'turn/start', 'user/message', 'step/start', 'chunks',
      'compaction/start', 'compaction/summary', 'user/message', 'compaction/end',
      'chunks', 'assistant/message', 'step/end', 'turn/end',
    ])
    expect(ofType(a.session, 'compaction/start')[0]!.data).toMatchObject({ turn: 2, trigger: 'overflow' })
    const retry = env.requests.at(-1)!
    expect(env.requests.map(request => request.purpose)).toEqual(['turn', 'turn', 'compaction', 'turn'])
    const checkpoint = a.session.events[ofType(a.session, 'compaction/end')[0]!.seq - 1]!
    expect(isCompactionCheckpoint(checkpoint)).toBe(true)
    expect(retry.messages[0]).toBe(checkpoint.data)
    expect(retry.messages.at(-1)).toMatchObject({ role: 'user', content: [{ type: 'text', text: 'and now?' }] })
  })

  it('L-063 an overflow bracket whose closing compaction/end is vetoed → COMPACTION_FAILED ends the turn; no retry', async () => {
    let veto = true
    const env = await boot({
      script: [{ match: { purpose: 'compaction' }, text: SUMMARY }, { text: 'ok' }, OVERFLOW, { text: 'done', repeat: true }],
      compaction: LARGE,
      before: app => void app.sessions.addCheck((_session, event) => {
        if (veto && event.type === 'compaction/end') throw new Error('end refused')
      }),
    })
    const a = await agent(env)
    await a.send(filler(400))
    const from = a.session.seq
    const result = await a.send('and now?')
    const startSeq = ofType(a.session, 'compaction/start')[0]!.seq
    const message = `compaction/start at seq ${startSeq} could not be closed: end refused`
    expect(result.reason).toEqual({ kind: 'error', error: { code: 'COMPACTION_FAILED', message } })
    expect(shape(a.session, from)).toEqual([
      'turn/start', 'user/message', 'step/start', 'chunks',
      'compaction/start', 'compaction/summary', 'user/message', 'step/end', 'turn/end',
    ])
    expect(env.requests.map(request => request.purpose)).toEqual(['turn', 'turn', 'compaction'])
    veto = false
    expect((await a.send('next')).reason).toEqual({ kind: 'completed' })
  })

  it('L-064 maxOverflowRetries 0 → no bracket; turn/end {error}', async () => {
    const env = await boot({ script: [{ text: 'ok' }, OVERFLOW], compaction: windowOf(1_000_000, { maxOverflowRetries: 0 }) })
    const a = await agent(env)
    await a.send(filler(400))
    const result = await a.send('and now?')
    expect(result.reason).toEqual({ kind: 'error', error: { code: 'CONTEXT_WINDOW_EXCEEDED', message: 'prompt is too long' } })
    expect(a.session.events.some(event => event.type.startsWith('compaction/'))).toBe(false)
  })

  it('L-065 a surface that is one call/result pair → no start event; the original error stands', async () => {
    const env = await boot({ script: [], compaction: LARGE })
    const a = await agent(env)
    const s = a.session
    s.append('turn/start', { turn: 1 })
    s.append('step/start', { turn: 1, step: 1 })
    s.append('assistant/message', { turn: 1, step: 1, message: {
      id: MessageId('a'), role: 'assistant', source: { kind: 'model', provider: 'scripted', model: 'm1' },
      content: [{ type: 'tool-call', id: CallId('c1'), name: 'read', arguments: '{}' }],
    } }, { surfaceOp: 'append', sourceEventSeqs: [] })
    const call = s.append('tool/call', { turn: 1, step: 1, callId: CallId('c1'), name: 'read', arguments: '{}' })
    s.append('tool/result', { turn: 1, step: 1, message: {
      id: MessageId('r'), role: 'user', source: { kind: 'tool', callId: CallId('c1') },
      content: [{ type: 'tool-result', toolCallId: CallId('c1'), content: [{ type: 'text', text: filler(500) }] }],
    } }, { surfaceOp: 'append', sourceEventSeqs: [call.seq] })
    const before = s.seq
    const decision: RequestErrorDecision = await env.app.waterfall('agent/request-error', {
      agent: a, session: s, turn: 1, step: 1, attempt: 1, signal: new AbortController().signal,
      error: { code: 'CONTEXT_WINDOW_EXCEEDED', message: 'prompt is too long' },
    }, () => ({ kind: 'fail' }) as const)
    expect(decision).toEqual({ kind: 'fail' })
    expect(s.seq).toBe(before)
  })

  it('L-065 a prune alone counts as progress → retry; a failed summary after a prune is warned and still retries', async () => {
    const env = await boot({ script: [{ match: { purpose: 'compaction' }, error: { code: 'PROVIDER', message: 'upstream broke' } }], compaction: LARGE })
    const a = await agent(env)
    const s = a.session
    const huge = (id: string, step: number) => {
      s.append('assistant/message', { turn: 1, step, message: {
        id: MessageId(`a-${id}`), role: 'assistant', source: { kind: 'model', provider: 'scripted', model: 'm1' },
        content: [{ type: 'tool-call', id: CallId(id), name: 'read', arguments: '{}' }],
      } }, { surfaceOp: 'append', sourceEventSeqs: [] })
      const call = s.append('tool/call', { turn: 1, step, callId: CallId(id), name: 'read', arguments: '{}' })
      return s.append('tool/result', { turn: 1, step, message: {
        id: MessageId(`r-${id}`), role: 'user', source: { kind: 'tool', callId: CallId(id) },
        content: [{ type: 'tool-result', toolCallId: CallId(id), content: [{ type: 'text', text: 'x'.repeat(20_000) }] }],
      } }, { surfaceOp: 'append', sourceEventSeqs: [call.seq] })
    }
    const overflow = async (step: number): Promise<RequestErrorDecision> => env.app.waterfall('agent/request-error', {
      agent: a, session: s, turn: 1, step, attempt: 1, signal: new AbortController().signal,
      error: { code: 'CONTEXT_WINDOW_EXCEEDED', message: 'prompt is too long' },
    }, () => ({ kind: 'fail' }) as const)
    s.append('turn/start', { turn: 1 })
    s.append('step/start', { turn: 1, step: 1 })
    const first = huge('c1', 1)
    // Only [assistant, result]: nothing to select, but pruning the (unread) result frees room.
    expect(await overflow(1)).toEqual({ kind: 'retry' })
    expect(shape(s, first.seq + 1)).toEqual(['compaction/prune', 'tool/result'])
    s.append('step/end', { turn: 1, step: 1 })
    s.append('step/start', { turn: 1, step: 2 })
    const second = huge('c2', 2)
    expect(await overflow(2)).toEqual({ kind: 'retry' })
    expect(shape(s, second.seq + 1)).toEqual(['compaction/prune', 'tool/result', 'compaction/start', 'compaction/end'])
    expect(s.events.at(-1)!.data).toMatchObject({ error: { code: 'SUMMARY_FAILED' } })
    expect(warnings(env, 'overflow recovery failed: summary request failed: upstream broke [PROVIDER]')).toHaveLength(1)
  })

  it('L-066 a second overflow in the same step with max 1 is not handled; the counter resets at the next step', async () => {
    const env = await boot({
      script: [
        { match: { purpose: 'compaction' }, text: SUMMARY, repeat: true },
        { match: { lastUserIncludes: 'first' }, text: 'ok' },
        OVERFLOW,
        { match: { lastUserIncludes: 'second' }, toolCalls: [{ name: 'read', arguments: {} }] },
        { match: { afterTool: 'read' }, ...OVERFLOW },
        { match: { afterTool: 'read' }, ...OVERFLOW },
      ],
      compaction: LARGE,
      tools: [tool('read', 'r'.repeat(2000))],
    })
    const a = await agent(env)
    await a.send(`first ${filler(400)}`)
    const result = await a.send(`second ${filler(400)}`)
    expect(result.reason).toEqual({ kind: 'error', error: { code: 'CONTEXT_WINDOW_EXCEEDED', message: 'prompt is too long' } })
    const starts = ofType(a.session, 'compaction/start')
    expect(starts.map(start => start.data.trigger)).toEqual(['overflow', 'overflow'])
    const steps = ofType(a.session, 'step/start').filter(step => step.data.turn === 2)
    expect(steps.map(step => step.data.step)).toEqual([1, 2])
    // One bracket per step: the first in step 1, the second in step 2; step 2's second overflow ended the turn.
    expect(starts[0]!.seq).toBeGreaterThan(steps[0]!.seq)
    expect(starts[0]!.seq).toBeLessThan(steps[1]!.seq)
    expect(starts[1]!.seq).toBeGreaterThan(steps[1]!.seq)
    expect(ofType(a.session, 'compaction/end').every(end => !('error' in end.data))).toBe(true)
    expect(env.requests.filter(request => request.purpose === 'turn')).toHaveLength(5)
  })

  it('L-067 RATE_LIMIT → the overflow listener does nothing', async () => {
    const env = await boot({
      script: [{ text: 'ok' }, { error: { code: 'RATE_LIMIT', message: 'slow down' } }], compaction: LARGE,
    })
    const a = await agent(env)
    await a.send(filler(400))
    const result = await a.send('again')
    expect(result.reason).toEqual({ kind: 'error', error: { code: 'RATE_LIMIT', message: 'slow down' } })
    expect(a.session.events.some(event => event.type.startsWith('compaction/'))).toBe(false)
    expect(env.requests.map(request => request.purpose)).toEqual(['turn', 'turn'])
  })

  it('L-068 auto: false → no listeners: neither pressure nor overflow compacts', async () => {
    const env = await boot({
      script: [{ match: { purpose: 'compaction' }, text: SUMMARY, repeat: true }, { text: 'ok' }, OVERFLOW],
      compaction: windowOf(1000, { auto: false }),
    })
    const a = await agent(env)
    await a.send(filler(900))
    const result = await a.send(filler(900))
    expect(result.reason).toMatchObject({ kind: 'error', error: { code: 'CONTEXT_WINDOW_EXCEEDED' } })
    expect(a.session.events.some(event => event.type.startsWith('compaction/'))).toBe(false)
    expect(env.requests.every(request => request.purpose === 'turn')).toBe(true)
    expect(env.logs.filter(line => line.includes('compaction'))).toEqual([])
  })
})
