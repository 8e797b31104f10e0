import { describe, expect, it, vi } from 'vitest'
import type { LlmRequest } from '@logbook/llm'
import { CallId, Session, SessionId, type StreamChunk } from '@logbook/session'
import type { ToolExecution } from '@logbook/tools'
import type { CheckpointPassedEvent } from '../src/index.ts'
import { drain } from '@logbook/test-kit'
import { bootPolicy, diskFull } from './helpers.ts'

/** An app with a spy adapter recording the durable cursor of `s1` at each call, and a live `s1` with 3 events. */
async function withSpy(store: string) {
  const env = await bootPolicy({ store })
  const cursorsAtCall: number[] = []
  env.app.llm.register({
    provider: 'spy',
    async *stream(request: LlmRequest) {
      cursorsAtCall.push(env.cursor(request.sessionId ?? ''))
      yield { type: 'finish', reason: 'stop' }
    },
  })
  const session = env.app.sessions.create(SessionId('s1'))
  session.append('turn/start', { turn: 1 })
  session.append('step/start', { turn: 1, step: 1 })
  session.append('todo/write', { todos: [] })
  const passed: CheckpointPassedEvent[] = []
  env.app.on('checkpoint/passed', event => void passed.push(event))
  const request = (sessionId?: string): LlmRequest => ({ config: { provider: 'spy', model: 'm' }, messages: [], ...(sessionId === undefined ? {} : { sessionId }) })
  return { ...env, session, cursorsAtCall, passed, request }
}

describe('llm/before-stream', () => {
  it('P-107 the flush completes before the adapter is called; checkpoint/passed names the required seq', async () => {
    const { app, session, cursorsAtCall, passed, request, logs } = await withSpy('p107a')
    expect(await drain(app.llm.stream(request('s1')))).toEqual([{ type: 'finish', reason: 'stop' }])
    expect(cursorsAtCall).toEqual([3])
    expect(passed).toEqual([{ sessionId: 's1', point: 'model-request', requiredSeq: 2 }])
    expect(session.seq).toBe(3)
    expect(logs.filter(line => line.includes('invariant'))).toEqual([])
  })

  it('P-107 a stream never pulled causes no flush; no session id or a detached id → no flush', async () => {
    const { app, cursorsAtCall, passed, request, cursor } = await withSpy('p107b')
    app.llm.stream(request('s1'))
    await new Promise(resolve => setTimeout(resolve, 5))
    expect(cursor('s1')).toBe(0)
    await drain(app.llm.stream(request()))
    await drain(app.llm.stream(request('unknown')))
    expect(cursorsAtCall).toEqual([0, 0])
    expect(passed).toEqual([])
  })

  it('P-107 a failed flush → finish error CHECKPOINT_FAILED; the adapter is never called', async () => {
    const { app, cursorsAtCall, passed, request } = await withSpy('p107c')
    app.on('session/flush', () => {
      throw diskFull()
    })
    expect(await drain(app.llm.stream(request('s1')))).toEqual([{
      type: 'finish', reason: 'error',
      error: { code: 'CHECKPOINT_FAILED', message: 'session "s1": checkpoint before the model request failed: disk full' },
    }])
    expect(cursorsAtCall).toEqual([])
    expect(passed).toEqual([])
  })

  it('a throwing or rejecting checkpoint/passed listener is contained: the request proceeds, a warning is logged', async () => {
    const { app, cursorsAtCall, request, logs } = await withSpy('passed-contained')
    app.on('checkpoint/passed', () => {
      throw new Error('observer bug')
    })
    app.on('checkpoint/passed', async () => {
      throw new Error('async observer bug')
    })
    expect(await drain(app.llm.stream(request('s1')))).toEqual([{ type: 'finish', reason: 'stop' }])
    await new Promise(resolve => setTimeout(resolve, 0))
    expect(cursorsAtCall).toEqual([3])
    expect(logs.filter(line => line.includes('checkpoint/passed listener threw: observer bug'))).toHaveLength(1)
    expect(logs.filter(line => line.includes('checkpoint/passed listener rejected: async observer bug'))).toHaveLength(1)
  })

  it('P-107 disposing the plugin removes its listeners', async () => {
    const { app, cursorsAtCall, request, policy } = await withSpy('p107d')
    await policy.dispose()
    await drain(app.llm.stream(request('s1')))
    expect(cursorsAtCall).toEqual([0])
  })
})

describe('tools/before-execute', () => {
  async function withTool(store: string) {
    const env = await bootPolicy({ store })
    const body = vi.fn((_args: unknown, { session }: { session: Session }) => `cursor ${env.cursor(session.id)}`)
    env.app.tools.register({ name: 'probe', description: '', parameters: { type: 'object' }, execute: body as never })
    const session = env.app.sessions.create(SessionId('s1'))
    session.append('turn/start', { turn: 1 })
    session.append('step/start', { turn: 1, step: 1 })
    const passed: CheckpointPassedEvent[] = []
    env.app.on('checkpoint/passed', event => void passed.push(event))
    const execution = (extra: Partial<ToolExecution> = {}): ToolExecution => ({
      callId: CallId('c1'), name: 'probe', arguments: '{}', signal: new AbortController().signal, session, turn: 1, step: 1, ...extra,
    })
    return { ...env, session, passed, body, execution }
  }

  it('P-108 flush, then the body; checkpoint/passed carries the call id', async () => {
    const { app, passed, execution } = await withTool('p108a')
    expect(await app.tools.execute(execution())).toEqual({ isError: false, content: [{ type: 'text', text: 'cursor 2' }] })
    expect(passed).toEqual([{ sessionId: 's1', point: 'tool-body', requiredSeq: 1, callId: 'c1' }])
  })

  it('P-108 a failed flush → outcome CHECKPOINT_FAILED named CheckpointError; the body does not run', async () => {
    const { app, body, execution } = await withTool('p108b')
    app.on('session/flush', () => {
      throw diskFull()
    })
    expect(await app.tools.execute(execution())).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'Error: session "s1": checkpoint before the tool body failed: disk full' }],
      error: { name: 'CheckpointError', code: 'CHECKPOINT_FAILED', message: 'session "s1": checkpoint before the tool body failed: disk full' },
    })
    expect(body).not.toHaveBeenCalled()
  })

  it('P-108 the signal aborted during the flush → outcome ABORTED; the body does not run', async () => {
    const { app, body, execution, passed } = await withTool('p108c')
    const controller = new AbortController()
    app.on('session/flush', async () => {
      controller.abort()
    })
    expect((await app.tools.execute(execution({ signal: controller.signal }))).error).toEqual({
      name: 'CheckpointError', code: 'ABORTED', message: 'tool call c1 was aborted during its checkpoint',
    })
    expect(body).not.toHaveBeenCalled()
    expect(passed).toEqual([])
  })

  it('P-108 parentCallId set → no flush', async () => {
    const { app, execution, passed } = await withTool('p108d')
    expect((await app.tools.execute(execution({ parentCallId: CallId('outer') }))).content).toEqual([{ type: 'text', text: 'cursor 0' }])
    expect(passed).toEqual([])
  })
})

describe('agent/pre-step (stand-in driver)', () => {
  it('flushes a live session, then calls next(); a detached session goes straight to next()', async () => {
    const env = await bootPolicy({ store: 'prestep' })
    const live = env.app.sessions.create(SessionId('s1'))
    live.append('turn/start', { turn: 1 })
    const detached = Session.create(SessionId('d1'))
    const passed: CheckpointPassedEvent[] = []
    env.app.on('checkpoint/passed', event => void passed.push(event))
    const payload = (session: Session) => ({
      agent: undefined as never, session, turn: 1, step: 1,
      request: { config: { provider: 'p', model: 'm' }, tools: [] }, signal: new AbortController().signal,
    })
    const cursorAtNext: number[] = []
    await env.app.waterfall('agent/pre-step', payload(live), () => void cursorAtNext.push(env.cursor('s1')))
    await env.app.waterfall('agent/pre-step', payload(detached), () => void cursorAtNext.push(env.cursor('d1')))
    expect(cursorAtNext).toEqual([1, 0])
    expect(passed).toEqual([{ sessionId: 's1', point: 'step-boundary', requiredSeq: 0 }])
  })
})
