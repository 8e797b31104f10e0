import MemorySessionPersistence from '@logbook/session-persistence'
import { describe, expect, it } from 'vitest'
import { createScriptedAdapter, parseScript } from '@logbook/llm-scripted'
import { agent, boot, filler, ofType, OPTIONS, rejection, shape, tool, warnings, windowOf, type ScriptEntry } from './helpers.ts'

const SUMMARY = 'Goal: finish the task. Work done: read the notes.'
const script = (...turns: ScriptEntry[]): ScriptEntry[] =>
  [{ match: { purpose: 'compaction' }, text: SUMMARY, repeat: true }, ...turns, { text: 'ok', repeat: true }]

describe('automatic compaction on pressure', () => {
  it('L-056 window 1000: a total of 700 → no compaction; about 900 → one compaction, and the total is then below 800', async () => {
    const env = await boot({ script: script(), compaction: windowOf(1000) })
    const before: number[] = []
    const after: number[] = []
    env.app.on('agent/pre-step', (payload, next) => {
      before.push(env.compaction.measure(payload.session, payload.request.tools).totalTokens)
      return next()
    }, { prepend: true })
    env.app.on('agent/pre-step', (payload, next) => {
      after.push(env.compaction.measure(payload.session, payload.request.tools).totalTokens)
      return next()
    })
    const a = await agent(env)
    await a.send(filler(695))
    expect(before).toEqual([700])
    expect(after).toEqual([700])
    expect(ofType(a.session, 'compaction/start')).toHaveLength(0)
    const from = a.session.seq
    const result = await a.send(filler(200))
    expect(result.reason).toEqual({ kind: 'completed' })
    expect(before[1]).toBe(909)
    expect(after[1]).toBeLessThan(800)
    const starts = ofType(a.session, 'compaction/start')
    expect(starts).toHaveLength(1)
    expect(starts[0]!.data).toMatchObject({ turn: 2, trigger: 'pressure' })
    expect(shape(a.session, from)).toEqual([
      'turn/start', 'user/message', 'compaction/start', 'compaction/summary', 'user/message', 'compaction/end',
      'step/start', 'chunks', 'assistant/message', 'step/end', 'turn/end',
    ])
    expect(env.requests.map(request => request.purpose)).toEqual(['turn', 'compaction', 'turn'])
  })

  it('L-057 no known capacity, or retainTokens 900 at window 1000 → one warning per pair, no events, the step runs', async () => {
    const env = await boot({ script: script(), compaction: { contextWindows: [{ provider: 'scripted', model: 'm1', contextWindow: 1000 }], retainTokens: 900 } })
    await env.app.plugin({
      name: 'bare-model', inject: ['llm'],
      apply: ctx => void ctx.llm.register(((inner) => ({ provider: 'bare', stream: inner.stream.bind(inner) }))(
        createScriptedAdapter({ provider: 'bare', contextWindow: 1, chunkSize: 8, entries: parseScript([{ text: 'fine', repeat: true }]) }))),
    })
    const bare = await agent(env, 'bare', { provider: 'bare', model: 'x' })
    await bare.send(filler(2000))
    expect((await bare.send(filler(2000))).reason).toEqual({ kind: 'completed' })
    expect(warnings(env, 'no context window known for bare/x; automatic compaction is off for it')).toHaveLength(1)
    const scripted = await agent(env)
    await scripted.send(filler(2000))
    expect((await scripted.send(filler(2000))).reason).toEqual({ kind: 'completed' })
    expect(warnings(env, 'retention of 900 tokens is not below the compaction threshold of 800 tokens for scripted/m1; automatic compaction is off for it'))
      .toHaveLength(1)
    for (const a of [bare, scripted]) expect(a.session.events.some(event => event.type.startsWith('compaction/'))).toBe(false)
  })

  it('L-058 an insufficient summary with compactionRetries 0 → one region, warning "after 1 compaction attempts", the step runs', async () => {
    const env = await boot({ script: script(), compaction: windowOf(1000, { compactionRetries: 0 }) })
    const a = await agent(env)
    await a.send(filler(200))
    const result = await a.send(filler(850))
    expect(result.reason).toEqual({ kind: 'completed' })
    expect(ofType(a.session, 'compaction/start')).toHaveLength(1)
    expect(ofType(a.session, 'compaction/end')[0]!.data).not.toHaveProperty('error')
    expect(warnings(env, 'still above threshold after 1 compaction attempts; continuing the turn')).toHaveLength(1)
    expect(ofType(a.session, 'step/start').at(-1)!.data).toEqual({ turn: 2, step: 1 })
  })

  it('L-059 a live lock at pre-step → a warning; an aborted signal → silent; either way compaction writes nothing and next() runs', async () => {
    const env = await boot({ script: script(), compaction: windowOf(1000) })
    const a = await agent(env)
    let lockSeq = -1
    let mode: 'lock' | 'abort' = 'lock'
    env.app.on('agent/pre-step', (payload, next) => {
      if (mode === 'lock') lockSeq = payload.session.append('compaction/start', { compactionId: 'other', turn: payload.turn, trigger: 'explicit' }).seq
      else payload.agent.cancel()
      return next()
    }, { prepend: true })
    const reached: string[] = []
    env.app.on('agent/pre-step', (payload, next) => {
      reached.push(mode)
      if (mode === 'lock') payload.session.append('compaction/end', { compactionId: 'other', turn: payload.turn, error: { code: 'CANCELLED', message: 'test' } })
      return next()
    })
    const locked = await a.send(filler(900))
    expect(locked.reason).toEqual({ kind: 'completed' })
    expect(warnings(env, `automatic compaction skipped: compaction already in progress (compaction/start at seq ${lockSeq})`)).toHaveLength(1)
    expect(a.session.events[lockSeq + 1]!.type).toBe('compaction/end')
    mode = 'abort'
    const logged = env.logs.length
    const aborted = await a.send(filler(100))
    expect(aborted.reason).toEqual({ kind: 'aborted', reason: { kind: 'user' } })
    expect(reached).toEqual(['lock', 'abort'])
    expect(env.logs.slice(logged).filter(line => line.includes('compaction'))).toEqual([])
    expect(ofType(a.session, 'compaction/start')).toHaveLength(1)
    expect(ofType(a.session, 'compaction/summary')).toHaveLength(0)
  })

  it('L-060 a read 20,000-char result is pruned first, with no summariser call when that suffices; an unread result is not pruned', async () => {
    const env = await boot({
      script: script({ match: { afterTool: 'big' }, toolCalls: [{ name: 'big2', arguments: {} }] }, { match: { afterTool: 'big2' }, text: 'done' },
        { match: { lastUserIncludes: 'go' }, toolCalls: [{ name: 'big', arguments: {} }] }),
      compaction: windowOf(10_000),
      tools: [tool('big', 'x'.repeat(20_000)), tool('big2', 'y'.repeat(20_000))],
    })
    const a = await agent(env)
    const result = await a.send('go')
    expect(result.reason).toEqual({ kind: 'completed' })
    const prunes = ofType(a.session, 'compaction/prune')
    expect(prunes).toHaveLength(1)
    const [bigResult, big2Result] = ofType(a.session, 'tool/result')
    expect(prunes[0]!.data.shadowedSeqs).toEqual([bigResult!.seq])
    expect(a.session.surface.nodes).not.toContain(bigResult!.seq)
    expect(a.session.surface.nodes).toContain(big2Result!.seq)
    expect(ofType(a.session, 'compaction/start')).toHaveLength(0)
    expect(env.requests.filter(request => request.purpose === 'compaction')).toHaveLength(0)
    // The prune ran at the third pre-step: after step 2's step/end, before step 3's step/start.
    const stepEnds = ofType(a.session, 'step/end')
    expect(prunes[0]!.seq).toBeGreaterThan(stepEnds[1]!.seq)
    expect(prunes[0]!.seq).toBeLessThan(ofType(a.session, 'step/start')[2]!.seq)
  })

  it('L-061 a summariser failure at pre-step → a warning; compaction/end with the error; the step runs', async () => {
    const env = await boot({
      script: [{ match: { purpose: 'compaction' }, error: { code: 'PROVIDER', message: 'upstream broke' } }, { text: 'ok', repeat: true }],
      compaction: windowOf(1000),
    })
    const a = await agent(env)
    await a.send(filler(200))
    const result = await a.send(filler(700))
    expect(result.reason).toEqual({ kind: 'completed' })
    const message = 'summary request failed: upstream broke [PROVIDER]'
    expect(warnings(env, `automatic compaction failed: ${message}; continuing the turn`)).toHaveLength(1)
    expect(ofType(a.session, 'compaction/end')[0]!.data).toMatchObject({ turn: 2, error: { code: 'SUMMARY_FAILED', message } })
    expect(ofType(a.session, 'compaction/summary')).toHaveLength(0)
    expect(ofType(a.session, 'step/start').at(-1)!.data).toEqual({ turn: 2, step: 1 })
    expect(ofType(a.session, 'step/start').at(-1)!.seq).toBeGreaterThan(ofType(a.session, 'compaction/end')[0]!.seq)
  })

  it('L-062 the bracket sits after the previous step/end and before the next step/start; turn = the open turn', async () => {
    const env = await boot({
      script: script({ match: { afterTool: 'read' }, text: 'done' }, { match: { lastUserIncludes: 'lorem' }, toolCalls: [{ name: 'read', arguments: {} }] }),
      compaction: windowOf(1000),
      tools: [tool('read', 'r'.repeat(2000))],
    })
    const a = await agent(env, 's', { ...OPTIONS, system: 'be brief' })
    await a.send('warm up')
    const from = a.session.seq
    await a.send(filler(300))
    expect(shape(a.session, from)).toEqual([
      'turn/start', 'user/message', 'step/start', 'chunks', 'assistant/message', 'tool/call', 'tool/result', 'step/end',
      'compaction/start', 'compaction/summary', 'user/message', 'compaction/end',
      'step/start', 'chunks', 'assistant/message', 'step/end', 'turn/end',
    ])
    expect(ofType(a.session, 'compaction/start')[0]!.data).toMatchObject({ turn: 2, trigger: 'pressure' })
    expect(ofType(a.session, 'compaction/end')[0]!.data).toEqual({ compactionId: ofType(a.session, 'compaction/start')[0]!.data.compactionId, turn: 2 })
    // The summary request carries the pre-step's provider/model (no summary model configured), system and tools.
    const [before, summary] = env.requests.slice(-3)
    expect(summary).toMatchObject({ purpose: 'compaction', config: { provider: 'scripted', model: 'm1', maxTokens: 8192 }, system: 'be brief' })
    expect(summary!.tools).toEqual(before!.tools)
    expect(summary!.tools).toHaveLength(1)
  })

  it('L-120 a vetoed closing compaction/end → turn/end {error COMPACTION_FAILED}, no step/start; the next turn runs with a warning; compactNow is BUSY until a resume', async () => {
    let vetoEnd = true
    const env = await boot({
      script: script(), compaction: windowOf(1000),
      persistence: { plugin: MemorySessionPersistence, config: { storeName: 'l120' } },
      before: app => void app.sessions.addCheck((_session, event) => {
        if (vetoEnd && event.type === 'compaction/end') throw new Error('end refused')
      }),
    })
    const a = await agent(env)
    await a.send(filler(100))
    const from = a.session.seq
    const failed = await a.send(filler(750))
    const startSeq = ofType(a.session, 'compaction/start')[0]!.seq
    const message = `compaction/start at seq ${startSeq} could not be closed: end refused`
    expect(failed.reason).toEqual({ kind: 'error', error: { code: 'COMPACTION_FAILED', message } })
    expect(shape(a.session, from)).toEqual(['turn/start', 'user/message', 'compaction/start', 'compaction/summary', 'user/message', 'turn/end'])
    vetoEnd = false
    const next = await a.send('carry on')
    expect(next.reason).toEqual({ kind: 'completed' })
    expect(warnings(env, `automatic compaction skipped: compaction already in progress (compaction/start at seq ${startSeq})`)).toHaveLength(1)
    const busy = await rejection(env.compaction.compactNow(a))
    expect(busy).toMatchObject({ name: 'ManualCompactionError', code: 'BUSY', message: `compaction/start at seq ${startSeq} was never closed; resume the session to clear it` })
    await a.dispose()
    const resumed = await env.app.agents.resume({ resumeSessionId: 's' })
    expect(resumed.session.events.at(-1)).toMatchObject({ type: 'session/end-seed', data: {} })
    const result = await env.compaction.compactNow(resumed)
    expect(result).not.toBeNull()
    expect(resumed.session.events[result!.startSeq]!.data).toMatchObject({ turn: null, trigger: 'manual' })
  })
})
