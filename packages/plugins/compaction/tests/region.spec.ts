import {
  deriveEventMessage, foldSurface, openTurnClosers, SessionId, type SessionEvent,
} from '@logbook/session'
import { describe, expect, it } from 'vitest'
import {
  CHECKPOINT_PREAMBLE, CompactionError, type CompactionResult, isCompactionCheckpoint, type Summarize,
} from '../src/index.ts'
import { frameSummary } from '../src/summary-node.ts'
import { agentOf, boot, filler, LogBuilder, type TestApp, typesFrom } from './helpers.ts'

/** Two closed turns with large tool results, then an open turn 3: a span of 8 nodes is compactable. */
async function scene(script?: Parameters<typeof boot>[0]): Promise<TestApp & { log: LogBuilder; span: { start: number; end: number } }> {
  const env = await boot(script)
  const log = LogBuilder.create(env.app).fullTurn('one', 'c1', filler(300)).fullTurn('two', 'c2', filler(300)).startTurn('three')
  const nodes = log.s.surface.nodes
  return { ...env, log, span: { start: nodes[0]!, end: nodes[7]! } }
}

const fixed = (summary = 'short summary'): Summarize => async () =>
  ({ summary, provider: 'p', model: 'm', maxTokens: 100, instructionVersion: 1 })

const rejection = (promise: Promise<unknown>): Promise<unknown> => promise.then(() => undefined, (error: unknown) => error)

describe('the region transaction', () => {
  it('L-042 an explicit region appends exactly start, summary, checkpoint, end; the checkpoint cites [start, summary, ...shadowed]; a replay rebuilds the surface', async () => {
    const { compaction, log, span } = await scene()
    const from = log.s.seq
    const shadowed = log.s.surface.nodes.slice(0, 8)
    const result = await compaction.compactRegion(agentOf(log.s), span)
    expect(typesFrom(log.s, from)).toEqual(['compaction/start', 'compaction/summary', 'user/message', 'compaction/end'])
    expect(result).toMatchObject({ startSeq: from, summarySeq: from + 1, checkpointSeq: from + 2, endSeq: from + 3 })
    expect(result.shadowedSeqs).toEqual(shadowed)
    expect(result.shadowedRange).toEqual(span)
    const checkpoint = log.s.events[result.checkpointSeq]!
    expect(checkpoint).toMatchObject({
      surfaceOp: { op: 'replace', start: span.start, end: span.end },
      sourceEventSeqs: [result.startSeq, result.summarySeq, ...shadowed],
      data: { id: `compaction-${result.compactionId}`, role: 'user', source: { kind: 'plugin', plugin: 'compaction' } },
    })
    expect(Object.keys((checkpoint.data as { source: object }).source)).toEqual(['kind', 'plugin'])
    expect(isCompactionCheckpoint(checkpoint)).toBe(true)
    expect(log.s.events[result.startSeq]!.data).toEqual({ compactionId: result.compactionId, turn: 3, trigger: 'explicit' })
    expect(log.s.events[result.endSeq]!.data).toEqual({ compactionId: result.compactionId, turn: 3 })
    expect(result.compactionId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    // Replay: a fold of the stored log and a restored copy give the same surface and messages.
    expect(foldSurface(log.s.events).nodes).toEqual([...log.s.surface.nodes])
    const stored = JSON.parse(JSON.stringify([...log.s.events])) as SessionEvent[]
    expect(foldSurface(stored).nodes).toEqual([...log.s.surface.nodes])
    expect(foldSurface(stored).nodes.map(seq => deriveEventMessage(stored[seq]!))).toEqual(log.s.deriveMessages())
  })

  it('L-044 INVALID_SPAN for a start that is not a node, start after end, a covered system node 0 or an unbalanced edge; NO_OPEN_TURN; nothing written', async () => {
    const env = await boot()
    const log = LogBuilder.create(env.app)
    log.system()
    log.fullTurn('one', 'c1', filler(300)).startTurn('two')
    const s = log.s
    const nodes = s.surface.nodes
    const before = s.seq
    const agent = agentOf(s)
    const cases: [{ start: number; end: number }, string][] = [
      [{ start: 1, end: nodes[4]! }, 'span start seq 1 is not on the surface'],
      [{ start: nodes[1]!, end: 999 }, 'span end seq 999 is not on the surface'],
      [{ start: nodes[3]!, end: nodes[1]! }, `span start seq ${nodes[3]} (position 3) is after end seq ${nodes[1]} (position 1)`],
      [{ start: nodes[0]!, end: nodes[2]! }, 'span covers the protected system message'],
      [{ start: nodes[1]!, end: nodes[2]! }, `span edge at seq ${nodes[2]} is not a balanced boundary`],
      [{ start: nodes[3]!, end: nodes[4]! }, `span edge at seq ${nodes[3]} is not a balanced boundary`],
    ]
    for (const [span, message] of cases) {
      const error = await rejection(env.compaction.compactRegion(agent, span))
      expect(error).toBeInstanceOf(CompactionError)
      expect(error).toMatchObject({ code: 'INVALID_SPAN', message })
    }
    log.s.append('turn/end', { turn: 2, reason: { kind: 'completed' } })
    const closed = s.seq
    const error = await rejection(env.compaction.compactRegion(agent, { start: nodes[1]!, end: nodes[4]! }))
    expect(error).toMatchObject({ code: 'NO_OPEN_TURN', message: 'compaction requires an open turn' })
    expect(s.seq).toBe(closed)
    expect(closed).toBe(before + 1)
    const manual = await rejection(env.compaction.runRegion({
      session: s, span: { start: nodes[1]!, end: nodes[4]! }, owner: 'none', trigger: 'manual', summarize: fixed(),
    }))
    expect(manual).toBeUndefined()
    log.turn = 2
    log.startTurn('three')
    const busy = await rejection(env.compaction.runRegion({
      session: s, span: { start: s.surface.nodes[1]!, end: s.surface.nodes.at(-1)! }, owner: 'none', trigger: 'manual', summarize: fixed(),
    }))
    expect(busy).toMatchObject({ code: 'BUSY', message: 'session has an open turn' })
  })

  it('L-045 a summariser failure → compaction/end.error.code SUMMARY_FAILED; no summary event; surface unchanged', async () => {
    const { compaction, log, span } = await scene([{ match: { purpose: 'compaction' }, error: { code: 'PROVIDER', message: 'upstream broke' } }])
    const from = log.s.seq
    const nodes = log.s.surface.nodes
    const error = await rejection(compaction.compactRegion(agentOf(log.s), span))
    expect(error).toMatchObject({ code: 'SUMMARY_FAILED', message: 'summarizer failed: upstream broke' })
    expect((error as Error).cause).toBeInstanceOf(Error)
    expect(typesFrom(log.s, from)).toEqual(['compaction/start', 'compaction/end'])
    const start = log.s.events[from]!.data as { compactionId: string }
    expect(log.s.events[from + 1]!.data).toEqual({
      compactionId: start.compactionId, turn: 3, error: { code: 'SUMMARY_FAILED', message: 'summarizer failed: upstream broke' },
    })
    expect(log.s.surface.nodes).toBe(nodes)
  })

  it('L-046 a framed summary that is not smaller → SUMMARY_FAILED ("not smaller"), end with the error', async () => {
    const env = await boot()
    const log = LogBuilder.create(env.app).fullTurn('one', 'c1').startTurn('two')
    const nodes = log.s.surface.nodes
    const from = log.s.seq
    const error = await rejection(env.compaction.compactRegion(agentOf(log.s), { start: nodes[0]!, end: nodes[3]! }))
    const framed = env.compaction.estimator().message({
      id: 'x' as never, role: 'user', source: { kind: 'user' }, content: [{ type: 'text', text: frameSummary('short summary') }],
    })
    const span = nodes.slice(0, 4).reduce((sum, seq) => sum + env.compaction.estimator().message(deriveEventMessage(log.s.events[seq]!)!), 0)
    const message = `summary is not smaller than the span it replaces (${framed} ≥ ${span} tokens)`
    expect(error).toMatchObject({ code: 'SUMMARY_FAILED', message })
    expect(log.s.events.at(-1)!.data).toMatchObject({ error: { code: 'SUMMARY_FAILED', message } })
    expect(typesFrom(log.s, from)).toEqual(['compaction/start', 'compaction/end'])
  })

  it('L-047 a log-only event or a node appended after the span during the summary → success; a replace → CHANGED, no summary', async () => {
    const { compaction, log, span } = await scene()
    const s = log.s
    const open = s.surface.nodes[8]!
    const during = (effect: () => void): Summarize => async () => {
      effect()
      return { summary: 'short summary', provider: 'p', model: 'm', maxTokens: 100, instructionVersion: 1 }
    }
    const ok = await compaction.runRegion({
      session: s, span, owner: 'turn', trigger: 'explicit',
      summarize: during(() => {
        s.append('todo/write', { todos: [] })
        s.append('user/message', { id: 'late' as never, role: 'user', source: { kind: 'user' }, content: [{ type: 'text', text: 'late' }] }, { surfaceOp: 'append' })
      }),
    })
    expect(s.surface.nodes).toEqual([ok.checkpointSeq, open, ok.checkpointSeq - 2])
    expect(s.events[ok.checkpointSeq - 3]!.type).toBe('todo/write')
    expect(s.deriveMessages().at(-1)).toMatchObject({ id: 'late' })

    const second = await scene()
    const t = second.log.s
    const from = t.seq
    const error = await rejection(second.compaction.runRegion({
      session: t, span: second.span, owner: 'turn', trigger: 'explicit',
      summarize: during(() => {
        const last = t.surface.nodes.at(-1)!
        t.append('user/message', { id: 'swap' as never, role: 'user', source: { kind: 'user' }, content: [{ type: 'text', text: 'swap' }] },
          { surfaceOp: { op: 'replace', start: last, end: last }, sourceEventSeqs: [last] })
      }),
    }))
    expect(error).toMatchObject({ code: 'CHANGED', message: 'session surface changed during compaction' })
    expect(typesFrom(t, from)).toEqual(['compaction/start', 'user/message', 'compaction/end'])
    expect(t.events.at(-1)!.data).toMatchObject({ error: { code: 'CHANGED', message: 'session surface changed during compaction' } })
  })

  it('L-048 an abort while the summariser runs, or after it resolves but before commit → CANCELLED; no summary or checkpoint', async () => {
    const { app, compaction, log, span } = await scene([{ match: { purpose: 'compaction' }, text: 'partial', hang: true }])
    const controller = new AbortController()
    let streaming!: () => void
    const started = new Promise<void>(resolve => { streaming = resolve })
    app.on('llm/before-stream', () => streaming())
    const from = log.s.seq + 1
    const pending = rejection(compaction.compactRegion(agentOf(log.s), { ...span, signal: controller.signal }))
    await started
    expect(log.s.events.at(-1)!.type).toBe('compaction/start')
    controller.abort('stop now')
    const error = await pending
    expect(error).toMatchObject({ code: 'CANCELLED', message: 'compaction was cancelled', cause: 'stop now' })
    expect(typesFrom(log.s, from - 1)).toEqual(['compaction/start', 'compaction/end'])
    expect(log.s.events.at(-1)!.data).toMatchObject({ error: { code: 'CANCELLED' } })

    const late = new AbortController()
    log.s.append('todo/write', { todos: [] })
    const before = log.s.seq
    const error2 = await rejection(compaction.runRegion({
      session: log.s, span, owner: 'turn', trigger: 'explicit', signal: late.signal,
      summarize: async () => {
        late.abort('too late')
        return { summary: 'short summary', provider: 'p', model: 'm', maxTokens: 100, instructionVersion: 1 }
      },
    }))
    expect(error2).toMatchObject({ code: 'CANCELLED', cause: 'too late' })
    expect(typesFrom(log.s, before)).toEqual(['compaction/start', 'compaction/end'])

    const pre = new AbortController()
    pre.abort('never started')
    const seq = log.s.seq
    await expect(compaction.compactRegion(agentOf(log.s), { ...span, signal: pre.signal })).rejects.toMatchObject({ code: 'CANCELLED' })
    expect(log.s.seq).toBe(seq)
  })

  it('L-049 a summary append vetoed by a companion → COMMIT_FAILED; one compaction/end with the error', async () => {
    const { app, compaction, log, span } = await scene()
    app.sessions.addCheck((_session, event) => {
      if (event.type === 'compaction/summary') throw new Error('no summaries today')
    })
    const from = log.s.seq
    const error = await rejection(compaction.compactRegion(agentOf(log.s), span))
    expect(error).toMatchObject({ code: 'COMMIT_FAILED', message: 'compaction could not be committed: no summaries today' })
    expect(typesFrom(log.s, from)).toEqual(['compaction/start', 'compaction/end'])
    expect(log.s.events.at(-1)!.data).toMatchObject({ error: { code: 'COMMIT_FAILED', message: 'compaction could not be committed: no summaries today' } })
  })

  it('L-050 the error compaction/end also fails → COMPACTION_FAILED; the start stays unmatched; later attempts are BUSY until a fork', async () => {
    const { app, compaction, log, span } = await scene()
    let veto = true
    const dispose = app.sessions.addCheck((_session, event) => {
      if (veto && (event.type === 'compaction/summary' || event.type === 'compaction/end')) throw new Error('disk on fire')
    })
    const from = log.s.seq
    const error = await rejection(compaction.compactRegion(agentOf(log.s), span))
    expect(error).toMatchObject({ code: 'COMPACTION_FAILED', message: `compaction/start at seq ${from} could not be closed: disk on fire` })
    expect(typesFrom(log.s, from)).toEqual(['compaction/start'])
    veto = false
    dispose()
    const busy = await rejection(compaction.compactRegion(agentOf(log.s), span))
    expect(busy).toMatchObject({ code: 'BUSY', message: `compaction already in progress (compaction/start at seq ${from})` })
    // The owner turn may still end with an error (a failed close), and a fork releases the orphaned lock.
    log.s.append('turn/end', { turn: 3, reason: { kind: 'error', error: { code: 'COMPACTION_FAILED', message: (error as Error).message } } })
    const child = app.sessions.fork(log.s, log.s.seq - 1, SessionId('child'))
    expect(child.events.at(-1)).toMatchObject({ type: 'session/end-seed', data: { inherited: true } })
    const next = new LogBuilder(child)
    next.turn = 3
    next.startTurn('four')
    const nodes = child.surface.nodes
    const result = await compaction.compactRegion(agentOf(child), { start: nodes[0]!, end: nodes[7]! })
    expect(child.events[result.endSeq]!.type).toBe('compaction/end')
  })

  it('L-051 a failing success-path compaction/end → COMPACTION_FAILED; no second end event', async () => {
    const { app, compaction, log, span } = await scene()
    app.sessions.addCheck((_session, event) => {
      if (event.type === 'compaction/end') throw new Error('end refused')
    })
    const from = log.s.seq
    const error: unknown = await rejection(compaction.compactRegion(agentOf(log.s), span))
    expect(error).toMatchObject({ code: 'COMPACTION_FAILED', message: `compaction/start at seq ${from} could not be closed: end refused` })
    expect(typesFrom(log.s, from)).toEqual(['compaction/start', 'compaction/summary', 'user/message'])
    expect(compaction.entryState(log.s).lock?.seq).toBe(from)
  })

  it('the checkpoint text is the preamble, a blank line and the tagged summary', async () => {
    const { compaction, log, span } = await scene()
    const result: CompactionResult = await compaction.compactRegion(agentOf(log.s), span)
    const text = (log.s.events[result.checkpointSeq]!.data as { content: { text: string }[] }).content[0]!.text
    expect(text).toBe(`${CHECKPOINT_PREAMBLE}\n\n<compacted-summary>\nshort summary\n</compacted-summary>`)
    expect(log.s.events[result.summarySeq]!.data).toMatchObject({ summary: 'short summary', summaryTokenCount: result.summaryTokenCount })
    expect(openTurnClosers(log.s.events, { kind: 'interrupted' }).map(event => event.type)).toEqual(['turn/end'])
  })
})
