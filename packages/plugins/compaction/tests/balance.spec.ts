import { CallId, MessageId, Session, SessionId } from '@logbook/session'
import { describe, expect, it } from 'vitest'
import { balanceCacheStats, balancedAfter, balancedBefore, cutPoints } from '../src/balance.ts'
import { CompactionError } from '../src/index.ts'
import { agentOf, boot, filler, LogBuilder } from './helpers.ts'

describe('tool-pairing balance', () => {
  it('L-032 [user, assistant(1 call), result] → cuts T, T, F, T; two calls → F after the first result, T after the second', async () => {
    const env = await boot()
    const log = LogBuilder.create(env.app).startTurn('go').startStep()
    log.assistant('', ['c1'])
    log.result('c1')
    expect(cutPoints(log.s)).toEqual([true, true, false, true])
    const [user, call, result] = log.s.surface.nodes as [number, number, number]
    expect(balancedBefore(log.s, user)).toBe(true)
    expect(balancedAfter(log.s, call)).toBe(false)
    expect(balancedBefore(log.s, result)).toBe(false)
    expect(balancedAfter(log.s, result)).toBe(true)
    log.endStep().startStep()
    log.assistant('two at once', ['c2', 'c3'])
    const first = log.result('c2')
    const second = log.result('c3')
    expect(balancedAfter(log.s, first.seq)).toBe(false)
    expect(balancedAfter(log.s, second.seq)).toBe(true)
    expect(cutPoints(log.s)).toEqual([true, true, false, true, false, false, true])
  })

  it('L-033 after a whole-surface replace the checkpoint is balanced on both sides; an old seq → INVALID_SPAN "not found"', async () => {
    const env = await boot()
    const log = LogBuilder.create(env.app).fullTurn('one', 'c1', filler(300)).startTurn('two')
    const nodes = log.s.surface.nodes
    const old = nodes[1]!
    const result = await env.compaction.compactRegion(agentOf(log.s), { start: nodes[0]!, end: nodes.at(-1)! })
    expect(log.s.surface.nodes).toEqual([result.checkpointSeq])
    expect(balancedBefore(log.s, result.checkpointSeq)).toBe(true)
    expect(balancedAfter(log.s, result.checkpointSeq)).toBe(true)
    expect(() => balancedBefore(log.s, old)).toThrow(new CompactionError('INVALID_SPAN', `surface seq ${old} not found`))
    expect(() => balancedAfter(log.s, old)).toThrow(`surface seq ${old} not found`)
  })

  it('L-034 a seed whose surface has a tool/result with no earlier call → CORRUPT_SURFACE on every query; cache unchanged', () => {
    const s = Session.create(SessionId('corrupt'), {
      seed: [
        { type: 'user/message', seq: 0, time: 1, data: { id: MessageId('u'), role: 'user', source: { kind: 'user' }, content: [{ type: 'text', text: 'hi' }] }, surfaceOp: 'append' },
        { type: 'tool/result', seq: 1, time: 1, data: { turn: 1, step: 1, message: {
          id: MessageId('r'), role: 'user', source: { kind: 'tool', callId: CallId('c') },
          content: [{ type: 'tool-result', toolCallId: CallId('c'), content: [] }],
        } }, surfaceOp: 'append' },
      ],
    })
    const expected = new CompactionError('CORRUPT_SURFACE', 'tool result at seq 1 has no matching tool call')
    expect(() => cutPoints(s)).toThrow(expected)
    expect(() => balancedBefore(s, 0)).toThrow(expected)
    expect(() => balancedAfter(s, 0)).toThrow(expected)
    expect(balanceCacheStats(s).rebuilds).toBe(0)
    try {
      cutPoints(s)
    } catch (error) {
      expect(error).toMatchObject({ code: 'CORRUPT_SURFACE', name: 'CompactionError' })
    }
  })

  it('L-034 a corrupt tail appended after the cache was built throws on every query and never extends the cache', () => {
    const s = Session.create(SessionId('tail'))
    const user = s.append('user/message', { id: MessageId('u'), role: 'user', source: { kind: 'user' }, content: [{ type: 'text', text: 'hi' }] }, { surfaceOp: 'append' })
    expect(cutPoints(s)).toEqual([true, true])
    const built = balanceCacheStats(s)
    const orphan = s.append('tool/result', { turn: 1, step: 1, message: {
      id: MessageId('r'), role: 'user', source: { kind: 'tool', callId: CallId('c') },
      content: [{ type: 'tool-result', toolCallId: CallId('c'), content: [] }],
    } }, { surfaceOp: 'append' })
    const expected = new CompactionError('CORRUPT_SURFACE', `tool result at seq ${orphan.seq} has no matching tool call`)
    for (let i = 0; i < 2; i++) {
      expect(() => cutPoints(s)).toThrow(expected)
      expect(() => balancedAfter(s, user.seq)).toThrow(expected)
    }
    // Each failing query re-read only the new node (nothing was committed), and no rebuild happened.
    expect(balanceCacheStats(s)).toEqual({ rebuilds: built.rebuilds, nodesRead: built.nodesRead + 4 })
  })

  it('L-035 balanceCacheStats: log-only appends read nothing; two node appends read 2; a replace rebuilds', async () => {
    const env = await boot()
    const log = LogBuilder.create(env.app).fullTurn('one', 'c1', filler(300)).startTurn('two')
    cutPoints(log.s)
    const base = balanceCacheStats(log.s)
    expect(base.rebuilds).toBe(1)
    log.startStep()
    log.s.append('request/context', { provider: 'scripted', model: 'm' })
    cutPoints(log.s)
    expect(balanceCacheStats(log.s)).toEqual(base)
    log.assistant('', ['c9'])
    log.result('c9')
    expect(cutPoints(log.s)).toHaveLength(log.s.surface.nodes.length + 1)
    expect(balanceCacheStats(log.s)).toEqual({ rebuilds: 1, nodesRead: base.nodesRead + 2 })
    log.endStep()
    const nodes = log.s.surface.nodes
    await env.compaction.compactRegion(agentOf(log.s), { start: nodes[0]!, end: nodes[3]! })
    cutPoints(log.s)
    const after = balanceCacheStats(log.s)
    expect(after.rebuilds).toBe(2)
    expect(after.nodesRead).toBe(base.nodesRead + 2 + log.s.surface.nodes.length)
  })
})
