import Llm, { defaultTokenEstimator, type TokenEstimator } from '@logbook/llm'
import SessionStore, { decodeStorageRun, deriveEventMessage, EventLog, eventsView, packChunkRuns, SessionId, type SessionEvent, type ToolSchema } from '@logbook/session'
import { testApp } from '@logbook/test-kit'
import { describe, expect, it } from 'vitest'
import { entryState, logOf } from '../src/index.ts'
import { agentOf, boot, filler, LogBuilder, TestCompaction } from './helpers.ts'

describe('token measurement', () => {
  it('L-036 the default estimator: "abcd" → 1, "abcde" → 2, "éééé" → 2, a user message "abcd" → 5', async () => {
    expect(defaultTokenEstimator.text('abcd')).toBe(1)
    expect(defaultTokenEstimator.text('abcde')).toBe(2)
    expect(defaultTokenEstimator.text('éééé')).toBe(2)
    const env = await boot()
    const log = LogBuilder.create(env.app)
    const user = log.user('abcd')
    const tools: ToolSchema[] = [{ name: 'read', description: 'read a file', parameters: { type: 'object' } }]
    expect(env.compaction.measure(log.s)).toEqual({ nodes: [{ seq: user.seq, tokens: 5 }], surfaceTokens: 5, headerTokens: 0, totalTokens: 5 })
    const header = defaultTokenEstimator.tools(tools)
    expect(env.compaction.measure(log.s, tools)).toEqual({
      nodes: [{ seq: user.seq, tokens: 5 }], surfaceTokens: 5, headerTokens: header, totalTokens: 5 + header,
    })
  })

  it('L-037 a plugin providing tokenEstimator is used by measure; after a replace the nodes follow the surface order', async () => {
    const env = await boot()
    const log = LogBuilder.create(env.app)
    log.system('rules')
    log.fullTurn('one', 'c1', filler(300)).startTurn('two')
    const custom: TokenEstimator = { text: () => 1, message: message => (message.role === 'system' ? 100 : 10), tools: () => 1000 }
    const fiber = await env.app.plugin({ name: 'estimator', apply: ctx => void ctx.provide('tokenEstimator', custom) })
    const measured = env.compaction.measure(log.s, [])
    expect(measured.nodes.map(node => node.tokens)).toEqual([100, 10, 10, 10, 10, 10])
    expect(measured).toMatchObject({ surfaceTokens: 150, headerTokens: 1000, totalTokens: 1150 })
    await fiber.dispose()
    // The estimator is read at each measurement: without the service the default prices apply again.
    const defaults = log.s.surface.nodes.map(seq => defaultTokenEstimator.message(deriveEventMessage(log.s.events[seq]!)!))
    expect(env.compaction.measure(log.s).nodes.map(node => node.tokens)).toEqual(defaults)
    expect(defaults).not.toEqual([100, 10, 10, 10, 10, 10])
    const nodes = log.s.surface.nodes
    const result = await env.compaction.compactRegion(agentOf(log.s), { start: nodes[1]!, end: nodes[4]! })
    const after = env.compaction.measure(log.s)
    expect(after.nodes.map(node => node.seq)).toEqual([...log.s.surface.nodes])
    expect(after.nodes.map(node => node.seq)).toEqual([nodes[0], result.checkpointSeq, nodes[5]])
    expect(after.nodes[1]!.tokens).toBe(result.summaryTokenCount)
  })

  it('the log mirror holds the very events of session.events, chunks as undefined, and builds no packed chunk of a restored log', async () => {
    // No invariant companion: those replay every event of a session when it is published.
    const { app } = testApp()
    await app.plugin(SessionStore)
    await app.plugin(Llm)
    await app.plugin(TestCompaction)
    const env = { app, compaction: app.compaction as TestCompaction }
    const log = LogBuilder.create(env.app)
    log.system('rules')
    log.fullTurn('one', 'c1', filler(300)).startTurn('two').startStep()
    for (let i = 0; i < 6; i++) log.s.append('assistant/chunk', { turn: log.turn, step: log.step, chunk: { type: 'text-delta', index: 0, text: `w${i}` } })
    log.assistant('w0w1w2w3w4w5')
    log.endStep().endTurn()
    const isChunk = (seq: number): boolean => log.s.events[seq]!.type === 'assistant/chunk'
    const live = logOf(log.s)
    expect(live).toHaveLength(log.s.seq)
    log.s.events.forEach((event, seq) => expect(live[seq]).toBe(isChunk(seq) ? undefined : event))

    // The same log restored as a backend hands it over: the chunk run stays packed until something reads it.
    const restoredLog = new EventLog()
    for (const record of packChunkRuns(log.s.events)) {
      const run = decodeStorageRun(JSON.parse(JSON.stringify(record)))
      if (run === undefined) restoredLog.push(JSON.parse(JSON.stringify(record)) as SessionEvent)
      else restoredLog.pushRun(run)
    }
    const restored = env.app.sessions.prepare(SessionId('restored'), {
      seed: eventsView(restoredLog), meta: { ...log.s.header, id: SessionId('restored') }, inheritedEventCount: 0, eventState: 'detached',
    })
    env.app.sessions.enter(restored)
    env.app.sessions.announce(restored)
    const packed = (): number => Array.from({ length: restoredLog.length }, (_, i) => restoredLog.runAt(i)).filter(run => run !== undefined).length
    const before = packed()
    expect(before).toBeGreaterThanOrEqual(5)
    expect(env.compaction.measure(restored).nodes).toEqual(env.compaction.measure(log.s).nodes)
    expect(entryState(restored)).toMatchObject({ openTurn: null, lock: null })
    expect(packed()).toBe(before)
    const mirror = logOf(restored)
    restored.events.forEach((event, seq) => expect(mirror[seq]).toBe(seq < log.s.seq && isChunk(seq) ? undefined : event))

    // Events appended later extend the mirror from `session/event`.
    log.startTurn('three')
    const later = logOf(log.s)
    expect(later).toHaveLength(log.s.seq)
    expect(later.at(-1)).toBe(log.s.events.at(-1))
    expect(entryState(log.s).openTurn).toBe(3)
  })
})
