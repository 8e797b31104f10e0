import { describe, expect, it } from 'vitest'
import type { AssistantItem, CompactionItem, LogItem } from '../src/model/item-types.ts'
import { messageItem, segmentItems } from '../src/model/items.ts'
import { pageOf } from '../src/model/pages.ts'
import { SessionView } from '../src/model/session-view.ts'
import { surfaceGroups } from '../src/model/surface-groups.ts'
import { LogBuilder } from './log.ts'

function viewOf(log: LogBuilder, events = log.events): SessionView {
  return new SessionView(log.header.id, log.header, events)
}

function kinds(items: readonly LogItem[]): string[] {
  return items.map(item => item.kind)
}

/** Two turns: a tool call with its result, then a crash inside a started call. */
function crashedLog(): LogBuilder {
  return new LogBuilder('s').system('Be brief.')
    .startTurn('read the notes').reply('Reading.', { calls: [{ id: 'c1', name: 'read_note', args: '{"name":"a"}' }], reasoning: 'the user wants notes' })
    .call({ id: 'c1', name: 'read_note', args: '{"name":"a"}' }).result('c1', 'note a')
    .nextStep().reply('Done reading.').endTurn()
    .startTurn('deploy it').reply('Deploying.', { calls: [{ id: 'c2', name: 'deploy', args: '{}' }] }).call({ id: 'c2', name: 'deploy', args: '{}' })
}

describe('the log view of a turn', () => {
  it('L-155 folds chunks into their reply, joins each tool call to its result, keeps reasoning apart', () => {
    const view = viewOf(crashedLog())
    expect(view.segments.map(segment => segment.turn)).toEqual([0, 1, 2])
    const turn1 = segmentItems(view, 1)
    expect(kinds(turn1.items)).toEqual(['user', 'assistant', 'assistant', 'turn-end'])
    const first = turn1.items[1] as AssistantItem
    expect(first.text).toBe('Reading.')
    expect(first.reasoning).toEqual(['the user wants notes'])
    expect(first.chunks).toBe(4)
    expect(first.tools).toHaveLength(1)
    expect(first.tools[0]).toMatchObject({ callId: 'c1', name: 'read_note', result: { isError: false } })
    expect(first.tools[0]!.callSeq).toBeTypeOf('number')
    expect(turn1.usage).toEqual({ inputTokens: 200, outputTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 })
    expect(turn1.running).toBe(false)
    expect(turn1.reason).toEqual({ kind: 'completed' })
  })

  it('L-155 an open turn is running, with no closer invented, and a started call without result is pending', () => {
    const view = viewOf(crashedLog())
    const turn2 = segmentItems(view, 2)
    expect(turn2.running).toBe(true)
    expect(turn2.reason).toBeUndefined()
    expect(kinds(turn2.items)).toEqual(['user', 'assistant'])
    const reply = turn2.items[1] as AssistantItem
    expect(reply.tools[0]!.callSeq).toBeTypeOf('number')
    expect(reply.tools[0]!.result).toBeUndefined()
    expect(view.openTurn).toBe(2)
  })

  it('L-155 the closers of a resume are marked synthetic: TOOL_OUTCOME_UNKNOWN and an interrupted turn', () => {
    const log = crashedLog()
    const view = viewOf(log, log.crashed())
    const turn2 = segmentItems(view, 2)
    expect(turn2.running).toBe(false)
    expect(turn2.reason).toEqual({ kind: 'interrupted' })
    const result = (turn2.items[1] as AssistantItem).tools[0]!.result!
    expect(result).toMatchObject({ synthetic: 'interrupted', errorCode: 'TOOL_OUTCOME_UNKNOWN', isError: true })
    expect(view.openTurn).toBeNull()
  })

  it('L-155 a refusal is kept apart from the text of the reply (session format 2)', () => {
    const log = new LogBuilder('s').startTurn('do something bad').reply('I see.', { refusal: 'I can not help with that.' }).endTurn()
    const reply = segmentItems(viewOf(log), 0).items[1] as AssistantItem
    expect(reply.text).toBe('I see.')
    expect(reply.refusals).toEqual(['I can not help with that.'])
  })

  it('L-155 a failed attempt shows its partial text and error; chunks of a running step show as streaming', () => {
    const log = new LogBuilder('s').startTurn('hi').failedAttempt('Hel', 'RATE_LIMIT').reply('Hello there', { finish: false })
    const items = segmentItems(viewOf(log), 0).items
    expect(items.map(item => item.kind)).toEqual(['user', 'partial', 'partial'])
    expect(items[1]).toMatchObject({ kind: 'partial', text: 'Hel', running: false, error: { code: 'RATE_LIMIT' } })
    expect(items[2]).toMatchObject({ kind: 'partial', text: 'Hello there', running: true })
  })
})

describe('compactions and the surface', () => {
  function compacted(): LogBuilder {
    return new LogBuilder('s').system('Be brief.')
      .startTurn('first question, with the word zebra').reply('first answer').endTurn()
      .startTurn('second question').reply('second answer').endTurn()
      .compact(1, 4, 'the user asked two questions')
      .startTurn('third question').reply('third answer').endTurn()
  }

  it('L-156 the log keeps the originals, marked as no longer on the surface, and the bracket carries summary and tokens', () => {
    const view = viewOf(compacted())
    const turn1 = segmentItems(view, 1).items
    const checkpoint = view.events.find(event => event.type === 'user/message' && event.data.id.startsWith('compaction-'))!.seq
    expect(turn1[0]).toMatchObject({ kind: 'user', text: 'first question, with the word zebra', shadowedBy: checkpoint })
    const bracket = segmentItems(view, 2).items.find(item => item.kind === 'compaction') as CompactionItem
    expect(bracket).toMatchObject({ trigger: 'manual', summary: 'the user asked two questions', tokensBefore: 900, tokensAfter: 120, checkpointSeq: checkpoint })
    expect(bracket.shadowedSeqs).toHaveLength(4)
    expect(bracket.endSeq).toBeTypeOf('number')
  })

  it('L-156 the surface shows the bracket in place of what it replaced, grouped by the turn each node was logged in', () => {
    const view = viewOf(compacted())
    const groups = surfaceGroups(view, 0, view.segments.length - 1)
    expect(groups.map(group => [group.segment, group.seqs.length])).toEqual([[0, 1], [2, 1], [3, 2]])
    const summaryNode = messageItem(view, view.events[groups[1]!.seqs[0]!]!)
    expect(summaryNode?.kind).toBe('compaction')
    expect(view.nodes).toHaveLength(4)
  })
})

describe('forks, pages and appends', () => {
  it('L-157 a fork child starts with the inherited prefix and marks the cut; the parent marks where its child was cut', () => {
    const parent = new LogBuilder('p').startTurn('one').reply('a').endTurn().startTurn('two').reply('b').endTurn()
    const cut = parent.events.findIndex(event => event.type === 'turn/end')
    const child = parent.fork('c', cut)
    const view = viewOf(child)
    expect(view.inheritedCount).toBe(cut + 1)
    expect(segmentItems(view, 0).items.at(-1)).toEqual({ kind: 'fork-seed', seq: cut + 1, afterSeq: cut, parent: 'p' })
    const parentView = viewOf(parent)
    const marked = segmentItems(parentView, 0, new Map([[cut, ['c']]])).items
    expect(marked.at(-1)).toEqual({ kind: 'fork-cut', seq: cut, children: ['c'] })
  })

  it('L-158 pages hold turnsPerPage turns, the events before the first turn join page 1, the last page is the default', () => {
    const log = new LogBuilder('s').system('x')
    for (let turn = 1; turn <= 7; turn++) log.startTurn(`q${turn}`).reply(`a${turn}`).endTurn()
    const view = viewOf(log)
    expect(pageOf(view, 3)).toEqual({ page: 3, pages: 3, from: 7, to: 7, turns: 7 })
    expect(pageOf(view, 3, { page: 1 })).toEqual({ page: 1, pages: 3, from: 0, to: 3, turns: 7 })
    const inTurn5 = view.segments[5]!.start + 2
    expect(pageOf(view, 3, { at: inTurn5 })).toMatchObject({ page: 2, from: 4, to: 6 })
    expect(pageOf(view, 3, { page: 99 }).page).toBe(3)
  })

  it('L-159 append reports the segments that grew and whether the surface only grew or was replaced', () => {
    const log = new LogBuilder('s').startTurn('q1').reply('a1').endTurn()
    const view = viewOf(log, log.events.slice(0, 3))
    log.startTurn('q2').reply('a2', { finish: false })
    const change = view.append(log.events.slice(3))
    expect(change).toMatchObject({ fromSeq: 3, segments: [0, 1], surfaceAppended: true, surfaceReplaced: false })
    expect(view.append(log.events.slice(0, 4))).toBeNull()
    expect(view.nextSeq).toBe(log.events.length)
    log.reply('a2 done').endTurn().compact(0, 1, 'summary')
    const replaced = view.append(log.events.slice(view.nextSeq))
    expect(replaced).toMatchObject({ segments: [1], surfaceReplaced: true })
    expect(view.lastReplaceSeq).toBe(log.events.findLast(event => event.type === 'user/message')!.seq)
    expect(view.nodes[0]).toBe(view.lastReplaceSeq)
  })

  it('L-159 events that are not contiguous from 0 are refused with INVALID_LOG', () => {
    const log = new LogBuilder('s').startTurn('q').reply('a').endTurn()
    expect(() => viewOf(log, log.events.slice(1))).toThrow(expect.objectContaining({ code: 'INVALID_LOG', message: 'session "s": event seq 1 does not follow -1' }))
  })
})
