import { describe, expect, it } from 'vitest'
import { selectSpan } from '../src/select.ts'
import { agentOf, boot, filler, LogBuilder } from './helpers.ts'

describe('head-anchored span selection', () => {
  it('L-038 retain 0 → the newest node is kept and the span runs from the head to the second newest', async () => {
    const env = await boot()
    const log = LogBuilder.create(env.app).fullTurn('one', 'c1').startTurn('two')
    const nodes = log.s.surface.nodes
    expect(selectSpan(log.s, env.compaction.measure(log.s), 0)).toEqual({ start: nodes[0], end: nodes.at(-2) })
  })

  it('L-039 a retain point inside a call/result group → the span ends before that group\'s assistant message', async () => {
    const env = await boot()
    const log = LogBuilder.create(env.app).startTurn(filler(50)).startStep()
    log.assistant(filler(50))
    log.endStep().startStep()
    const call = log.assistant('', ['c1'])
    const result = log.result('c1', filler(5))
    const measurement = env.compaction.measure(log.s)
    const resultTokens = measurement.nodes.at(-1)!.tokens
    // Retaining a bit more than the result alone lands the retain point between the call and its result.
    const span = selectSpan(log.s, measurement, resultTokens + 1)
    const nodes = log.s.surface.nodes
    expect(nodes.at(-1)).toBe(result.seq)
    expect(nodes.at(-2)).toBe(call.seq)
    expect(span).toEqual({ start: nodes[0], end: nodes.at(-3) })
  })

  it('L-040 [system, user] → null; [checkpoint, user] → null; a node-0 system message is never inside a span', async () => {
    const env = await boot()
    const log = LogBuilder.create(env.app)
    log.system()
    log.startTurn('hello')
    expect(selectSpan(log.s, env.compaction.measure(log.s), 0)).toBeNull()
    log.startStep()
    log.assistant(filler(300))
    log.endStep()
    log.user('and more')
    const nodes = log.s.surface.nodes
    expect(selectSpan(log.s, env.compaction.measure(log.s), 0)).toEqual({ start: nodes[1], end: nodes[2] })

    const other = LogBuilder.create(env.app, 'other').startTurn(filler(300))
    other.startStep()
    other.assistant(filler(300))
    other.endStep()
    other.user('later')
    const first = other.s.surface.nodes
    const result = await env.compaction.compactRegion(agentOf(other.s), { start: first[0]!, end: first[1]! })
    expect(other.s.surface.nodes).toEqual([result.checkpointSeq, first[2]])
    expect(selectSpan(other.s, env.compaction.measure(other.s), 0)).toBeNull()
  })

  it('L-041 after one compaction the next span starts at the checkpoint (start seq > end seq) and the replace is accepted', async () => {
    const env = await boot()
    const log = LogBuilder.create(env.app).fullTurn('one', 'c1', filler(300)).startTurn(filler(300))
    const nodes = log.s.surface.nodes
    const first = await env.compaction.compactRegion(agentOf(log.s), { start: nodes[0]!, end: nodes[3]! })
    log.startStep()
    log.assistant('working on it')
    log.endStep()
    const span = selectSpan(log.s, env.compaction.measure(log.s), 0)!
    expect(span).toEqual({ start: first.checkpointSeq, end: nodes[4] })
    expect(span.start).toBeGreaterThan(span.end)
    const second = await env.compaction.compactRegion(agentOf(log.s), span)
    expect(second.shadowedSeqs).toEqual([first.checkpointSeq, nodes[4]])
    expect(log.s.surface.nodes).toEqual([second.checkpointSeq, log.s.surface.nodes.at(-1)])
  })
})
