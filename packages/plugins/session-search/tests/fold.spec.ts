/**
 * F-001…F-004: what each event contributes (spec 04 §2), and the fold that indexes a log in steps — its surface
 * tracking equals core's `foldSurface`, a step resumed from the stored state equals one pass, and chunks are
 * indexed only when no assistant message carries their text.
 */
import { foldSurface, type Session, type SessionEvent } from '@logbook/session'
import { describe, expect, it } from 'vitest'
import { piecesOf } from '../src/extract.ts'
import { EMPTY_FOLD, foldRange, type FoldState, type TextRow, titleOf, viewOf } from '../src/fold.ts'
import { appendAs, turn } from './helpers.ts'
import { compact, detachedSession, prune, requestErrorStep } from './events.ts'

/** Fold `events` in steps of `step` events, as the indexer does across transactions. */
function foldInSteps(events: readonly SessionEvent[], step: number): { state: FoldState; rows: TextRow[]; shadowed: number[] } {
  let state = EMPTY_FOLD
  const rows: TextRow[] = []
  const shadowed: number[] = []
  const view = viewOf(events, 0)
  while (state.count < events.length) {
    const result = foldRange(view, state, Math.min(events.length, state.count + step))
    rows.push(...result.rows)
    shadowed.push(...result.shadowed)
    state = result.state
  }
  return { state, rows, shadowed }
}

/** Rows with the shadowed seqs taken off the surface, as the store applies them. */
function finalRows(result: { rows: TextRow[]; shadowed: number[] }): string[] {
  const off = new Set(result.shadowed)
  return result.rows.map(row => `${row.seq} ${row.type} ${row.field} ${row.onSurface && !off.has(row.seq) ? 'surface' : 'log'} ${row.text}`)
}

function conversation(): Session {
  const s = detachedSession('f')
  s.append('system/message', { id: 'system-0' as never, role: 'system', source: { kind: 'system' }, content: [{ type: 'text', text: 'Be brief.' }] }, { surfaceOp: 'append' })
  turn(s, 1, { prompt: 'list the notes', reply: 'Reading them now', tool: 'list_notes', args: '{"dir":"notes"}', result: 'plan.md\nbudget.md', answer: 'Two notes.' })
  turn(s, 2, { prompt: 'summarise the budget', reply: 'Opening it', tool: 'read_note', args: '{"name":"budget.md"}', result: 'x'.repeat(300), answer: 'It is tight.' })
  prune(s, 2)
  compact(s, 'The user asked for notes; the budget is tight.')
  turn(s, 3, { prompt: 'what next', reply: 'Plan the release' })
  return s
}

describe('what events contribute', () => {
  it('F-001 message texts by role, reasoning, each tool call’s name and arguments, results and errors, summaries, todos, titles', () => {
    const s = conversation()
    const fields = s.events.flatMap(event => piecesOf(event).map(piece => `${event.type}:${piece.field}`))
    expect(new Set(fields)).toEqual(new Set([
      'system/message:system', 'user/message:user', 'assistant/message:assistant', 'assistant/message:tool-name',
      'assistant/message:tool-arguments', 'tool/result:tool-result', 'user/message:summary',
    ]))
    const summary = s.events.find(event => piecesOf(event)[0]?.field === 'summary')!
    // The checkpoint's framing (03 §2.9) is left out: only the summary itself is searchable.
    expect(piecesOf(summary)).toEqual([{ field: 'summary', text: 'The user asked for notes; the budget is tight.' }])
    const more = detachedSession('g')
    const error = more.append('turn/end', { turn: 1, reason: { kind: 'error', error: { code: 'RATE_LIMIT', message: 'slow down' } } })
    const todos = more.append('todo/write', { todos: [{ content: 'ship it', status: 'pending' }, { content: 'tell ops', status: 'completed' }] })
    const title = appendAs(more, 'session/title', { title: 'Release plan' }, { ignorable: true })
    const reasoning = more.append('assistant/message', {
      turn: 1, step: 1, message: { id: 'a' as never, role: 'assistant', source: { kind: 'model', provider: 'p', model: 'm' }, content: [
        { type: 'reasoning', text: 'think twice' }, { type: 'refusal', text: 'I cannot share that' }, { type: 'text', text: 'Here is why.' },
      ] },
    }, { surfaceOp: 'append', sourceEventSeqs: [] })
    expect([error, todos, title, reasoning].map(piecesOf)).toEqual([
      [{ field: 'error', text: 'RATE_LIMIT slow down' }], [{ field: 'todo', text: 'ship it\ntell ops' }],
      [{ field: 'title', text: 'Release plan' }],
      [{ field: 'assistant', text: 'Here is why.' }, { field: 'reasoning', text: 'think twice' }, { field: 'refusal', text: 'I cannot share that' }],
    ])
  })

  it('F-002 text another event already carries is indexed once: no chunk, tool/call, compaction/summary or pruned copy', () => {
    const s = conversation()
    const silent = s.events.filter(event => piecesOf(event).length === 0).map(event => event.type)
    expect(silent).toContain('assistant/chunk')
    expect(silent).toContain('tool/call')
    expect(silent).toContain('compaction/summary')
    const pruned = s.events.find(event => event.type === 'tool/result' && typeof (event as { surfaceOp?: unknown }).surfaceOp === 'object')!
    expect(piecesOf(pruned)).toEqual([])
    const rows = foldInSteps(s.events, 1_000).rows
    expect(rows.filter(row => row.text.includes('Reading them now'))).toHaveLength(1)
  })
})

describe('the fold', () => {
  it('F-003 tracks the surface exactly as core folds it, whatever the steps; rows shadowed by a replace leave the surface', () => {
    const s = conversation()
    const nodes = foldSurface(s.events).nodes
    for (const step of [1, 3, 7, 1_000]) {
      const result = foldInSteps(s.events, step)
      expect(result.state.nodes).toEqual(nodes)
      expect(finalRows(result)).toEqual(finalRows(foldInSteps(s.events, 1_000)))
    }
    const rows = finalRows(foldInSteps(s.events, 5))
    expect(rows).toContain(`${s.events.findIndex(e => e.type === 'tool/result')} tool/result tool-result log plan.md\nbudget.md`)
    expect(rows.some(row => row.endsWith('summary surface The user asked for notes; the budget is tight.'))).toBe(true)
    expect(rows.find(row => row.includes('what next'))).toMatch(/ user surface what next$/)
    expect(titleOf(foldInSteps(s.events, 2).state)).toBe('list the notes')
  })

  it('F-004 chunks of an attempt no message cites become one text per kind when the step ends, also across steps', () => {
    const s = detachedSession('c')
    s.append('turn/start', { turn: 1 })
    const first = requestErrorStep(s, 1, ['Deploying', ' to', ' staging'])
    s.append('turn/end', { turn: 1, reason: { kind: 'error', error: { code: 'PROVIDER', message: 'upstream failed' } } })
    for (const step of [1, 2, 1_000]) {
      const rows = foldInSteps(s.events, step).rows
      expect(rows.filter(row => row.type === 'assistant/chunk')).toEqual([
        { seq: first, turn: 1, type: 'assistant/chunk', field: 'assistant', onSurface: false, text: 'Deploying to staging' },
      ])
    }
    const open = foldRange(viewOf(s.events, 0), EMPTY_FOLD, first + 2)
    expect(open.rows).toEqual([])
    expect(open.state.resume).toBe(first)
  })
})

