import { Context } from '@deepseek-ai/cordis'
import { describe, expect, it } from 'vitest'
import SessionStore, { CallId, MessageId, type Session, SessionId, type ToolResultMessage } from '@logbook/session'
import * as LoopInvariant from '../src/invariant.ts'

async function store(): Promise<{ app: Context; fiber: Awaited<ReturnType<Context['plugin']>>; s: Session }> {
  const app = new Context()
  await app.plugin(SessionStore)
  const fiber = await app.plugin(LoopInvariant)
  const s = app.sessions.create(SessionId('s'))
  s.append('turn/start', { turn: 1 })
  s.append('step/start', { turn: 1, step: 1 })
  return { app, fiber, s }
}

function chunk(s: Session, step = 1): number {
  return s.append('assistant/chunk', { turn: 1, step, chunk: { type: 'text-delta', index: 0, text: 'x' } }).seq
}

function assistant(s: Session, sources: number[], step = 1): void {
  s.append('assistant/message', {
    turn: 1, step,
    message: { id: MessageId(`a-${s.seq}`), role: 'assistant', source: { kind: 'model', provider: 'p', model: 'm' }, content: [] },
  }, { surfaceOp: 'append', sourceEventSeqs: sources })
}

function result(callId: string, error?: { name: string; code: string }): [{ turn: number; step: number; message: ToolResultMessage; error?: { name: string; code: string } }] {
  const message: ToolResultMessage = {
    id: MessageId(`r-${callId}`), role: 'user', source: { kind: 'tool', callId: CallId(callId) },
    content: [{ type: 'tool-result', toolCallId: CallId(callId), content: [], isError: error !== undefined }],
  }
  return [{ turn: 1, step: 1, message, ...(error === undefined ? {} : { error }) }]
}

function vetoed(fn: () => unknown): string {
  try {
    fn()
  } catch (error) {
    expect(error).toMatchObject({ name: 'SessionInvariantError', code: 'SESSION_INVARIANT' })
    return (error as Error).message
  }
  throw new Error('expected a veto')
}

describe('@logbook/agent-loop/invariant', () => {
  it('an assistant/message may cite only assistant/chunks of its turn and step', async () => {
    const { s } = await store()
    const c = chunk(s)
    assistant(s, [c])
    expect(vetoed(() => assistant(s, [0]))).toBe('session "s" invariant: assistant/message at seq 4 cites seq 0, which is not an assistant/chunk of turn 1/step 1')
    s.append('step/end', { turn: 1, step: 1 })
    s.append('step/start', { turn: 1, step: 2 })
    expect(vetoed(() => assistant(s, [c], 2))).toContain(`cites seq ${c}, which is not an assistant/chunk of turn 1/step 2`)
    expect(s.seq).toBe(6)
  })

  it('an appended tool/result must cite exactly its call\'s tool/call of the same step; a synthetic not-started one cites nothing', async () => {
    const { s } = await store()
    const call = s.append('tool/call', { turn: 1, step: 1, callId: CallId('c1'), name: 't', arguments: '{}' }).seq
    const other = s.append('tool/call', { turn: 1, step: 1, callId: CallId('c2'), name: 't', arguments: '{}' }).seq
    expect(vetoed(() => s.append('tool/result', ...result('c1'), { surfaceOp: 'append' }))).toBe(
      `session "s" invariant: tool/result for c1 at seq ${other + 1} must cite exactly its tool/call of turn 1/step 1`)
    vetoed(() => s.append('tool/result', ...result('c1'), { surfaceOp: 'append', sourceEventSeqs: [other] }))
    vetoed(() => s.append('tool/result', ...result('c1'), { surfaceOp: 'append', sourceEventSeqs: [call, other] }))
    s.append('tool/result', ...result('c1'), { surfaceOp: 'append', sourceEventSeqs: [call] })
    s.append('tool/result', ...result('c3', { name: 'ToolNotStartedError', code: 'TOOL_NOT_STARTED' }), { surfaceOp: 'append' })
    expect(s.seq).toBe(other + 3)
  })

  it('request/header initial only when no earlier header exists; disposing the companion removes the check', async () => {
    const { s, fiber } = await store()
    const header = { config: { provider: 'p', model: 'm' } }
    s.append('request/header', { header, reason: 'initial' })
    s.append('request/header', { header, reason: 'resume' })
    expect(vetoed(() => s.append('request/header', { header, reason: 'initial' }))).toBe(
      'session "s" invariant: request/header at seq 4 has reason initial after an earlier header')
    await fiber.dispose()
    s.append('request/header', { header, reason: 'initial' })
  })
})
