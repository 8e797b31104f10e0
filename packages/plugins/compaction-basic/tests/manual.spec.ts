import { CHECKPOINT_PREAMBLE, ManualCompactionError } from '@logbook/compaction'
import { defaultTokenEstimator } from '@logbook/llm'
import { deriveEventMessage, MessageId, SessionId, type SessionEvent } from '@logbook/session'
import { describe, expect, it } from 'vitest'
import { createSummarizer, SUMMARY_INSTRUCTION } from '../src/index.ts'
import { INSTRUCTION_MESSAGE } from '../src/summarizer.ts'
import { agent, boot, filler, ofType, rejection, shape, tool, type Env } from './helpers.ts'

const SUMMARY = 'Goal: ship it. Work done: wrote the plan.'
const compactionFirst = (extra: object = {}) => [{ match: { purpose: 'compaction' as const }, text: SUMMARY, ...extra }, { text: 'ok', repeat: true }]

/** Flushes seen through `session/flush`, as the seq count at the time. */
function watchFlushes(env: Env): number[] {
  const flushes: number[] = []
  env.app.on('session/flush', session => void flushes.push(session.seq))
  return flushes
}

describe('manual compaction', () => {
  it('L-069 compactNow on an idle agent → turn null on start and end, one flush after end, no turn consumed', async () => {
    const env = await boot({ script: compactionFirst() })
    const flushes = watchFlushes(env)
    const a = await agent(env)
    await a.send(filler(300))
    await a.send('second')
    const from = a.session.seq
    const result = await env.compaction.compactNow(a)
    expect(result).not.toBeNull()
    expect(shape(a.session, from)).toEqual(['compaction/start', 'compaction/summary', 'user/message', 'compaction/end'])
    expect(a.session.events[result!.startSeq]!.data).toMatchObject({ turn: null, trigger: 'manual' })
    expect(a.session.events[result!.endSeq]!.data).toEqual({ compactionId: result!.compactionId, turn: null })
    expect(flushes).toEqual([result!.endSeq + 1])
    expect(a.status).toBe('idle')
    expect((await a.send('third')).turn).toBe(3)
  })

  it('L-069 compactNow works on a turn-less log', async () => {
    const env = await boot({ script: compactionFirst() })
    const seed: SessionEvent[] = [0, 1, 2].map(seq => ({
      type: 'user/message', seq, time: 1, surfaceOp: 'append',
      data: { id: MessageId(`u${seq}`), role: 'user', source: { kind: 'user' }, content: [{ type: 'text', text: filler(200) }] },
    }))
    const a = await env.app.agents.create({ sessionId: 'seeded', seed, options: { provider: 'scripted', model: 'm1' } })
    const result = await env.compaction.compactNow(a)
    expect(result?.shadowedSeqs).toEqual([0, 1])
    expect(a.session.surface.nodes).toEqual([result!.checkpointSeq, 2])
  })

  it('L-070 compactNow while running → BUSY, no events; nothing compactable → null, no events, status idle', async () => {
    let release!: () => void
    const gate = new Promise<void>(resolve => { release = resolve })
    const env = await boot({
      script: [{ match: { lastUserIncludes: 'slow' }, toolCalls: [{ name: 'wait', arguments: {} }] }, { text: 'ok', repeat: true }],
      tools: [{ ...tool('wait', 'waited'), execute: async () => { await gate; return 'waited' } }],
    })
    const a = await agent(env)
    const turn = a.send('slow')
    await new Promise(resolve => setImmediate(resolve))
    // The turn waits for the tool body: a running turn, reported as waiting-for-tool.
    expect([a.status, a.turn]).toEqual(['waiting-for-tool', 1])
    const seq = a.session.seq
    const busy = await rejection(env.compaction.compactNow(a))
    expect(busy).toBeInstanceOf(ManualCompactionError)
    expect(busy).toMatchObject({ code: 'BUSY', message: 'agent "s" is waiting-for-tool, not idle' })
    expect(a.session.seq).toBe(seq)
    release()
    await turn
    const fresh = await agent(env, 'fresh')
    const statuses: string[] = []
    env.app.on('agent/status', (_agent, status) => void statuses.push(status))
    // An empty surface has nothing to compact; so has [checkpoint, newest] after a compaction.
    expect(await env.compaction.compactNow(fresh)).toBeNull()
    expect(fresh.session.seq).toBe(0)
    expect(fresh.status).toBe('idle')
    expect(statuses).toEqual(['maintenance', 'idle'])
  })

  it('L-071 send() during maintenance → its turn/start comes after compaction/end and after the flush', async () => {
    const env = await boot({ script: compactionFirst() })
    const a = await agent(env)
    await a.send(filler(300))
    await a.send('second')
    const order: string[] = []
    env.app.on('session/flush', () => void order.push('flush'))
    let queued: Promise<{ turn: number }> | undefined
    env.app.on('llm/before-stream', request => {
      if (request.purpose !== 'compaction') return
      order.push(`status ${a.status}`)
      queued = a.send('during')
    })
    env.app.on('session/event', (_session, event) => {
      if (event.type === 'compaction/end' || event.type === 'turn/start') order.push(event.type)
    })
    await env.compaction.compactNow(a)
    const turn = await queued!
    expect(turn.turn).toBe(3)
    expect(order).toEqual(['status maintenance', 'compaction/end', 'flush', 'turn/start'])
  })

  it('L-072 a pre-aborted signal → CANCELLED, nothing written; agent.cancel() mid-summary → end with error, flush, then CANCELLED with cause', async () => {
    const env = await boot({ script: compactionFirst({ hang: true }) })
    const flushes = watchFlushes(env)
    const a = await agent(env)
    await a.send(filler(300))
    await a.send('second')
    const seq = a.session.seq
    const controller = new AbortController()
    controller.abort('not now')
    const early = await rejection(env.compaction.compactNow(a, { signal: controller.signal }))
    expect(early).toMatchObject({ name: 'ManualCompactionError', code: 'CANCELLED', message: 'compaction was cancelled', cause: 'not now' })
    expect(a.session.seq).toBe(seq)
    env.app.on('llm/before-stream', request => {
      if (request.purpose === 'compaction') setImmediate(() => a.cancel())
    })
    const error = await rejection(env.compaction.compactNow(a))
    expect(error).toMatchObject({ name: 'ManualCompactionError', code: 'CANCELLED', message: 'compaction was cancelled' })
    expect(error.cause).toBeInstanceOf(DOMException)
    expect((error.cause as Error).message).toBe('agent "s" was cancelled (user)')
    expect(shape(a.session, seq)).toEqual(['compaction/start', 'compaction/end'])
    expect(a.session.events.at(-1)!.data).toMatchObject({ turn: null, error: { code: 'CANCELLED', message: 'compaction was cancelled' } })
    expect(flushes).toEqual([seq + 2])
    expect(a.status).toBe('idle')
  })

  it('L-073 a flush failing after a clean close → PERSISTENCE_FAILED; the checkpoint is in the log', async () => {
    const env = await boot({ script: compactionFirst() })
    const a = await agent(env)
    await a.send(filler(300))
    await a.send('second')
    env.app.on('session/flush', () => { throw new Error('disk full') })
    const from = a.session.seq
    const error = await rejection(env.compaction.compactNow(a))
    expect(error).toMatchObject({ name: 'ManualCompactionError', code: 'PERSISTENCE_FAILED', message: 'session could not be flushed after compaction: disk full' })
    expect(shape(a.session, from)).toEqual(['compaction/start', 'compaction/summary', 'user/message', 'compaction/end'])
    expect(a.session.surface.nodes[0]).toBe(from + 2)
  })

  it('L-074 manual compaction with a huge tool result on the surface → no compaction/prune', async () => {
    const env = await boot({
      script: [
        { match: { purpose: 'compaction' }, text: SUMMARY },
        { match: { lastUserIncludes: 'read' }, toolCalls: [{ name: 'read', arguments: {} }] },
        { text: 'ok', repeat: true },
      ],
      tools: [tool('read', 'z'.repeat(30_000))],
    })
    const a = await agent(env)
    await a.send('read it')
    await a.send('thanks')
    const result = await env.compaction.compactNow(a)
    expect(result).not.toBeNull()
    expect(ofType(a.session, 'compaction/prune')).toHaveLength(0)
    expect(result!.shadowedSeqs).toContain(ofType(a.session, 'tool/result')[0]!.seq)
  })

  it('L-050 a manual bracket whose close fails → COMPACTION_FAILED; the next send rejects SESSION_NEEDS_RESUME', async () => {
    let veto = false
    const env = await boot({
      script: compactionFirst(),
      before: app => void app.sessions.addCheck((_session, event) => {
        if (veto && event.type === 'compaction/end') throw new Error('end refused')
      }),
    })
    const a = await agent(env)
    await a.send(filler(300))
    await a.send('second')
    veto = true
    const start = a.session.seq
    const error = await rejection(env.compaction.compactNow(a))
    expect(error).toMatchObject({ name: 'ManualCompactionError', code: 'COMPACTION_FAILED', message: `compaction/start at seq ${start} could not be closed: end refused` })
    veto = false
    const blocked = await rejection(a.send('third'))
    expect(blocked).toMatchObject({ code: 'SESSION_NEEDS_RESUME', message: `compaction lock at seq ${start} is orphaned; resume the session to clear it` })
    expect(ofType(a.session, 'turn/start')).toHaveLength(2)
  })
})

describe('the summariser', () => {
  it('L-043 checkpoint text = preamble, blank line, tags; the summary carries provider, model, maxTokens, instructionVersion 1 and usage', async () => {
    const env = await boot({
      script: [{ match: { purpose: 'compaction' }, text: `  ${SUMMARY}\n`, usage: { inputTokens: 321, outputTokens: 12 } }, { text: 'ok', repeat: true }],
      tools: [tool('read', 'r')],
    })
    const a = await env.app.agents.create({ sessionId: 'sum', options: { provider: 'scripted', model: 'm1', system: 'be terse' } })
    await a.send(filler(300))
    await a.send('second')
    const result = await env.compaction.compactNow(a)
    const summary = a.session.events[result!.summarySeq]!
    expect(summary.data).toEqual({
      compactionId: result!.compactionId, summary: SUMMARY, shadowedRange: result!.shadowedRange, shadowedSeqs: result!.shadowedSeqs,
      shadowedTokenCount: result!.shadowedTokenCount, summaryTokenCount: result!.summaryTokenCount,
      provider: 'scripted', model: 'm1', maxTokens: 8192, instructionVersion: 1, usage: { inputTokens: 321, outputTokens: 12 },
    })
    const checkpoint = a.session.events[result!.checkpointSeq]!
    const text = `${CHECKPOINT_PREAMBLE}\n\n<compacted-summary>\n${SUMMARY}\n</compacted-summary>`
    expect(checkpoint.data).toMatchObject({ role: 'user', content: [{ type: 'text', text }] })
    expect(CHECKPOINT_PREAMBLE).toBe('Earlier conversation was compacted. The block below is an automatically generated summary of it; treat it as background and continue without commenting on it.')
    expect(result!.summaryTokenCount).toBe(defaultTokenEstimator.message(checkpoint.data as never))
    const request = env.requests.find(r => r.purpose === 'compaction')!
    expect(request).toMatchObject({ config: { provider: 'scripted', model: 'm1', maxTokens: 8192 }, system: 'be terse', sessionId: SessionId('sum') })
    expect(request.signal).toBeInstanceOf(AbortSignal)
    expect(request.tools).toEqual([{ name: 'read', description: 'the read tool', parameters: { type: 'object' } }])
    expect(request.tools).toEqual(a.session.requestHeader()!.tools)
    expect(request.messages.at(-1)).toBe(INSTRUCTION_MESSAGE)
    expect(request.messages.slice(0, -1)).toEqual(result!.shadowedSeqs.map(seq => deriveEventMessage(a.session.events[seq]!)))
    expect(SUMMARY_INSTRUCTION.split('\n')).toHaveLength(4)
    expect(SUMMARY_INSTRUCTION).toBe([
      'Stop the task and write a checkpoint of the conversation above so another model can continue without it.',
      'Use exactly these sections, in this order: Goal and requests; Decisions and constraints; Files, commands and identifiers; Errors and fixes; Work done; Open items and next step.',
      'Write short bullets; write "(none)" under an empty section. Copy paths, commands, identifiers, numbers and error texts exactly; keep the user\'s corrections and preferences.',
      'Do not call tools. Do not mention that this is a summary. If the conversation opens with an earlier <compacted-summary>, merge it instead of quoting it.',
    ].join('\n'))
  })

  it('summary failures: cut off at maxTokens, blank text, no target; a configured summary model is used', async () => {
    const env = await boot({
      script: [
        { match: { purpose: 'compaction' }, error: { code: 'RATE_LIMIT', message: 'slow down' } },
        { match: { purpose: 'compaction' }, text: 'partial', finish: 'max-tokens' },
        { match: { purpose: 'compaction' }, text: '   ', toolCalls: [{ name: 'read', arguments: {} }] },
        { match: { purpose: 'compaction' }, text: SUMMARY },
        { text: 'ok', repeat: true },
      ],
      compaction: { summaryProvider: 'scripted', summaryModel: 'summarizer', maxTokens: 100 },
    })
    const a = await agent(env)
    await a.send(filler(300))
    await a.send('second')
    const failed = await rejection(env.compaction.compactNow(a))
    expect(failed).toMatchObject({ code: 'SUMMARY_FAILED', message: 'summary request failed: slow down [RATE_LIMIT]' })
    expect(failed.cause).toEqual({ code: 'RATE_LIMIT', message: 'slow down' })
    expect(await rejection(env.compaction.compactNow(a))).toMatchObject({ code: 'SUMMARY_FAILED', message: 'summary was cut off at maxTokens' })
    expect(await rejection(env.compaction.compactNow(a))).toMatchObject({ code: 'SUMMARY_FAILED', message: 'model returned no summary text' })
    const result = await env.compaction.compactNow(a)
    expect(a.session.events[result!.summarySeq]!.data).toMatchObject({ provider: 'scripted', model: 'summarizer', maxTokens: 100 })
    expect(env.requests.filter(r => r.purpose === 'compaction').map(r => r.config)).toEqual(Array(4).fill({ provider: 'scripted', model: 'summarizer', maxTokens: 100 }))
    const untargeted = createSummarizer({ llm: env.app.llm, target: { provider: undefined, model: 'm' }, maxTokens: 10, sessionId: 's' })
    expect(await rejection(untargeted({ messages: [] }))).toMatchObject({ code: 'SUMMARY_FAILED', message: 'no provider/model available for summarization' })
  })
})
