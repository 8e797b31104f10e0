import { CallId, type SessionEvent } from '@logbook/session'
import { describe, expect, it } from 'vitest'
import { assembleSessions } from '../src/assemble.ts'
import { ReportBuilder } from '../src/report.ts'
import type { ImportedSession, ImportItem } from '../src/types.ts'
import { createInStore, ofType, surface, transcript } from './helpers.ts'

const user = (key: string, text: string): ImportItem => ({ kind: 'user', key, content: [{ type: 'text', text }] })
const answer = (key: string, text: string, extra: object = {}): ImportItem =>
  ({ kind: 'assistant', key, provider: 'p', model: 'm', blocks: [{ type: 'text', text }], ...extra })
const calls = (key: string, ...ids: string[]): ImportItem =>
  ({ kind: 'assistant', key, provider: 'p', model: 'm', blocks: ids.map(id => ({ type: 'tool-call', id: CallId(id), name: 'tool', arguments: '{}' })) })
const result = (key: string, callId: string): ImportItem => ({ kind: 'tool-result', key, callId, content: [{ type: 'text', text: `out ${callId}` }], isError: false })

function build(items: ImportItem[], branches: ImportItem[][] = []): { sessions: ImportedSession[]; report: ReportBuilder } {
  const report = new ReportBuilder()
  const sessions = assembleSessions({
    tool: 'pi', source: report.source('Test', 'seed', 1000), label: 'test', sourceId: 'src', id: undefined, createdAt: 1000,
    main: { items }, branches: branches.map(list => ({ items: list, leaf: 'leaf' })),
  })
  return { sessions, report }
}

const reasons = (events: readonly SessionEvent[]) => ofType(events, 'turn/end').map(e => (e.data as { reason: { kind: string } }).reason.kind)

describe('the conversation builder', () => {
  it('L-185 a kept entry inside a call/result group moves the cut before that group, so no result loses its call', async () => {
    const items = [user('u1', 'one'), calls('a1', 'c1'), result('r1', 'c1'), answer('a2', 'done'),
      { kind: 'compaction', key: 'k1', trigger: 'auto', summary: 'S', keepFromKey: 'r1' } as ImportItem, user('u2', 'two')]
    const { sessions } = build(items)
    const events = sessions[0]!.events
    expect(surface(events)).toEqual([expect.stringMatching(/^user\(compaction\)/), 'assistant: call tool c1 {}', 'tool c1: out c1', 'assistant: done', 'user: two'])
    await createInStore(sessions)
  })

  it('L-185 a compaction with nothing before it to replace is skipped and noted', () => {
    const { sessions, report } = build([{ kind: 'compaction', key: 'k0', trigger: 'manual', summary: 'S' }, user('u1', 'hi')])
    expect(ofType(sessions[0]!.events, 'compaction/start')).toHaveLength(0)
    expect(report.report('pi', 2).skipped).toEqual({ 'compaction with nothing to replace': 1 })
  })

  it('L-185 a compaction after tool results, mid-turn, is owned by the open turn', () => {
    const { sessions } = build([user('u1', 'go'), calls('a1', 'c1'), result('r1', 'c1'), { kind: 'compaction', key: 'k1', trigger: 'auto', summary: 'S' }, answer('a2', 'done')])
    const events = sessions[0]!.events
    expect(ofType(events, 'compaction/start')[0]!.data).toMatchObject({ turn: 1, trigger: 'pressure' })
    expect(ofType(events, 'turn/start')).toHaveLength(1)
  })

  it('L-184 a message sent beside tool calls and results stays in its turn; a prompt after the final answer opens the next', () => {
    const { sessions } = build([user('u1', 'go'), calls('a1', 'c1', 'c2'), result('r1', 'c1'), user('u2', 'also this'), result('r2', 'c2'),
      user('u3', 'and this'), answer('a2', 'done'), user('u4', 'next')])
    const events = sessions[0]!.events
    expect(ofType(events, 'turn/start').map(e => e.data)).toEqual([{ turn: 1 }, { turn: 2 }])
    expect(ofType(events, 'step/start').map(e => e.data)).toEqual([{ turn: 1, step: 1 }, { turn: 1, step: 2 }])
    expect(transcript(events)).toEqual(['user: go', 'assistant: call tool c1 {} | call tool c2 {}', 'tool c1: out c1', 'user: also this', 'tool c2: out c2',
      'user: and this', 'assistant: done', 'user: next'])
  })

  it('L-184 a call id repeated in one response is dropped and reported; results cite their tool/call', () => {
    const { sessions, report } = build([user('u1', 'go'), calls('a1', 'c1', 'c1'), result('r1', 'c1')])
    const events = sessions[0]!.events
    expect(ofType(events, 'tool/call')).toHaveLength(1)
    const answered = ofType(events, 'tool/result')[0] as SessionEvent<'tool/result'> & { sourceEventSeqs: number[] }
    expect(events[answered.sourceEventSeqs[0]!]!.type).toBe('tool/call')
    expect(report.report('pi', 0).skipped).toEqual({ 'repeated tool call': 1 })
  })

  it('L-184 a turn ends max-tokens after a cut-off answer; a response with no prompt opens its own turn', () => {
    const { sessions } = build([answer('a0', 'hello first'), user('u1', 'go'), answer('a1', 'trunc', { stop: 'max-tokens' })])
    expect(reasons(sessions[0]!.events)).toEqual(['completed', 'max-tokens'])
  })

  it('L-181 a converted log that Logbook would refuse is IMPORT_INVALID, naming the session and the rule', () => {
    expect(() => build([user('u1', 'go'), { kind: 'assistant', key: 'a1', provider: '', model: 'm', blocks: [] }])).toThrow(expect.objectContaining({
      code: 'IMPORT_INVALID',
      message: 'test: the converted session "src" is not a valid Logbook session: seed event at index 3: event "request/header": data.header.config.provider must be a non-empty string',
    }))
  })

  it('L-181 a branch that shares no history with the session is skipped and noted', () => {
    const { sessions, report } = build([user('u1', 'one')], [[user('x1', 'other')]])
    expect(sessions).toHaveLength(1)
    expect(report.report('pi', 0).notes).toEqual(['the branch ending at leaf shares no history with the session and was skipped'])
  })
})
