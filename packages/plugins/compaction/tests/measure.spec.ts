import { defaultTokenEstimator, type TokenEstimator } from '@logbook/llm'
import { deriveEventMessage, type ToolSchema } from '@logbook/session'
import { describe, expect, it } from 'vitest'
import { entryState, logOf } from '../src/index.ts'
import { agentOf, boot, filler, LogBuilder } from './helpers.ts'

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

  it('the log mirror holds the very events of session.events, read in one slice at first and extended as events follow', async () => {
    const env = await boot()
    const log = LogBuilder.create(env.app)
    log.system('rules')
    log.fullTurn('one', 'c1', filler(300)).fullTurn('two', 'c2').startTurn('three')
    const first = logOf(log.s)
    expect(first).toHaveLength(log.s.seq)
    log.s.events.forEach((event, seq) => expect(first[seq]).toBe(event))
    expect(entryState(log.s)).toMatchObject({ openTurn: 3, endSeedSeq: null, unmatchedStart: null, lock: null })
    log.user('more')
    log.s.append('turn/end', { turn: 3, reason: { kind: 'completed' } })
    const later = logOf(log.s)
    expect(later).toHaveLength(log.s.seq)
    log.s.events.forEach((event, seq) => expect(later[seq]).toBe(event))
    expect(entryState(log.s).openTurn).toBeNull()
  })
})
