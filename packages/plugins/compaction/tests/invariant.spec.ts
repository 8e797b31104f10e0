import { Context } from '@deepseek-ai/cordis'
import SessionStore, { MessageId, type Session, SessionId, SessionInvariantError } from '@logbook/session'
import { describe, expect, it } from 'vitest'
import * as Compaction from '../src/index.ts'
import { summaryNodeMessage } from '../src/summary-node.ts'
import { COMPACTION_EVENT_TYPES } from '../src/events.ts'
import * as CompactionInvariant from '../src/invariant.ts'
import { boot, LogBuilder } from './helpers.ts'

const veto = (s: Session, detail: string) => new SessionInvariantError(s.id, detail)

const summary = (compactionId: string, seqs: number[]) => ({
  compactionId, summary: 's', shadowedRange: { start: seqs[0]!, end: seqs.at(-1)! }, shadowedSeqs: seqs,
  shadowedTokenCount: 10, summaryTokenCount: 5, provider: 'p', model: 'm', maxTokens: 10, instructionVersion: 1,
})

describe('@logbook/compaction/invariant', () => {
  it('L-052 a numbered start outside a turn, a wrong turn, a null start in a turn and a nested start are rejected', async () => {
    const { app } = await boot()
    const log = LogBuilder.create(app)
    const s = log.s
    expect(() => s.append('compaction/start', { compactionId: 'a', turn: 1, trigger: 'explicit' }))
      .toThrow(veto(s, 'compaction/start names turn 1 but the open turn is none'))
    log.startTurn('hi')
    expect(() => s.append('compaction/start', { compactionId: 'a', turn: 2, trigger: 'pressure' }))
      .toThrow(veto(s, 'compaction/start names turn 2 but the open turn is 1'))
    expect(() => s.append('compaction/start', { compactionId: 'a', turn: null, trigger: 'manual' }))
      .toThrow(veto(s, 'compaction/start names turn null but the open turn is 1'))
    expect(() => s.append('compaction/start', { compactionId: '', turn: 1, trigger: 'manual' }))
      .toThrow(veto(s, 'compaction/start needs a non-empty compactionId'))
    const start = s.append('compaction/start', { compactionId: 'a', turn: 1, trigger: 'pressure' })
    expect(() => s.append('compaction/start', { compactionId: 'b', turn: 1, trigger: 'pressure' }))
      .toThrow(veto(s, `compaction/start while compaction a (compaction/start at seq ${start.seq}) is open`))
    expect(() => s.append('compaction/summary', { ...summary('a', [1, 0]), shadowedRange: { start: 0, end: 1 } }))
      .toThrow(veto(s, 'compaction/summary shadowedRange must equal the first and last of shadowedSeqs'))
    expect(() => s.append('compaction/summary', { ...summary('a', [1]), summaryTokenCount: 1.5 }))
      .toThrow(veto(s, 'compaction/summary summaryTokenCount must be an integer ≥ 0'))
    expect(() => s.append('compaction/summary', summary('z', [1]))).toThrow(veto(s, 'compaction/summary names compaction z but the open compaction is a'))
  })

  it('L-053 the owning turn\'s turn/end {completed} inside its bracket is rejected; {interrupted} or {error} are accepted', async () => {
    const { app } = await boot()
    const log = LogBuilder.create(app).startTurn('hi')
    const s = log.s
    s.append('compaction/start', { compactionId: 'a', turn: 1, trigger: 'pressure' })
    expect(() => s.append('turn/end', { turn: 1, reason: { kind: 'completed' } }))
      .toThrow(veto(s, 'turn/end 1 (completed) inside compaction a owned by that turn'))
    s.append('turn/end', { turn: 1, reason: { kind: 'error', error: { code: 'COMPACTION_FAILED', message: 'x' } } })
    // The orphaned turn-owned bracket does not block the next turn.
    log.turn = 1
    log.startTurn('next')
    const other = LogBuilder.create(app, 'other').startTurn('hi')
    other.s.append('compaction/start', { compactionId: 'b', turn: 1, trigger: 'overflow' })
    other.s.append('turn/end', { turn: 1, reason: { kind: 'interrupted' } })
    const manual = LogBuilder.create(app, 'manual')
    manual.s.append('compaction/start', { compactionId: 'm', turn: null, trigger: 'manual' })
    expect(() => manual.s.append('turn/start', { turn: 1 })).toThrow(veto(manual.s, 'turn/start 1 inside manual compaction m'))
  })

  it('L-054 a checkpoint naming another id, or an error-free end without summary, is rejected', async () => {
    const { app } = await boot()
    const log = LogBuilder.create(app).startTurn('hello there')
    const s = log.s
    const user = s.surface.nodes[0]!
    s.append('compaction/start', { compactionId: 'a', turn: 1, trigger: 'explicit' })
    expect(() => s.append('compaction/end', { compactionId: 'a', turn: 1 }))
      .toThrow(veto(s, 'compaction/end without error for a needs its summary and checkpoint'))
    expect(() => s.append('user/message', summaryNodeMessage('a', 'early'), { surfaceOp: { op: 'replace', start: user, end: user }, sourceEventSeqs: [user] }))
      .toThrow(veto(s, 'checkpoint compaction-a comes before its compaction/summary'))
    const summarySeq = s.append('compaction/summary', summary('a', [user])).seq
    expect(() => s.append('compaction/summary', summary('a', [user]))).toThrow(veto(s, 'compaction/summary for a is repeated'))
    expect(() => s.append('user/message', summaryNodeMessage('b', 'wrong'), { surfaceOp: { op: 'replace', start: user, end: user }, sourceEventSeqs: [user] }))
      .toThrow(veto(s, 'checkpoint compaction-b names compaction b but the open compaction is a'))
    expect(() => s.append('compaction/end', { compactionId: 'a', turn: 1 }))
      .toThrow(veto(s, 'compaction/end without error for a needs its summary and checkpoint'))
    s.append('user/message', summaryNodeMessage('a', 'right'), { surfaceOp: { op: 'replace', start: user, end: user }, sourceEventSeqs: [user, summarySeq] })
    expect(() => s.append('compaction/end', { compactionId: 'a', turn: null }))
      .toThrow(veto(s, 'compaction/end names turn null but its compaction/start names turn 1'))
    s.append('compaction/end', { compactionId: 'a', turn: 1 })
    expect(() => s.append('compaction/end', { compactionId: 'a', turn: 1 }))
      .toThrow(veto(s, 'compaction/end names compaction a but the open compaction is none'))
    // An ordinary user message with another source is not a checkpoint.
    s.append('user/message', { id: MessageId('compaction-x'), role: 'user', source: { kind: 'user' }, content: [{ type: 'text', text: 'hi' }] }, { surfaceOp: 'append' })
  })

  it('the companion replays existing sessions at load and refuses a log that breaks a relation', async () => {
    const app = new Context()
    await app.plugin(SessionStore)
    await app.plugin(Compaction)
    const s = app.sessions.create(SessionId('early'))
    s.append('compaction/start', { compactionId: 'a', turn: 3, trigger: 'explicit' })
    await expect(app.plugin(CompactionInvariant)).rejects.toThrow(veto(s, 'compaction/start names turn 3 but the open turn is none'))
    const clean = new Context()
    await clean.plugin(SessionStore)
    await clean.plugin(Compaction)
    clean.sessions.create(SessionId('ok')).append('compaction/start', { compactionId: 'a', turn: null, trigger: 'manual' })
    await clean.plugin(CompactionInvariant)
    const again = clean.sessions.get(SessionId('ok'))!
    expect(() => again.append('turn/start', { turn: 1 })).toThrow(veto(again, 'turn/start 1 inside manual compaction a'))
  })

  it('the seam plugin registers the four event types for as long as it is loaded', async () => {
    const app = new Context()
    await app.plugin(SessionStore)
    expect(app.sessions.isKnownEventType('compaction/start')).toBe(false)
    const fiber = await app.plugin(Compaction)
    for (const type of COMPACTION_EVENT_TYPES) expect(app.sessions.isKnownEventType(type)).toBe(true)
    await fiber.dispose()
    expect(app.sessions.isKnownEventType('compaction/prune')).toBe(false)
  })
})
