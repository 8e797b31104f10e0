/** Shared test builders for the compaction seam: a real Cordis app, a scripted summariser, and a log builder. */

import type { Context } from '@deepseek-ai/cordis'
import Llm from '@logbook/llm'
import SessionStore, {
  CallId, MessageId, SessionId, type Session, type SessionEvent, type StreamChunk, type TokenUsage, type UserMessage,
} from '@logbook/session'
import * as SessionInvariant from '@logbook/session/invariant'
import type { AgentHandle } from '@logbook/agent-loop'
import * as Scripted from '@logbook/llm-scripted'
import { testApp } from '@logbook/test-kit'
import {
  cancelledError, CompactionService, type CompactionResult, type CompactRegionOptions, type Summarize,
} from '../src/index.ts'
import * as CompactionInvariant from '../src/invariant.ts'

/** A seam-only service for tests: explicit compaction through the scripted summariser, no manual path. */
export class TestCompaction extends CompactionService {
  static override inject = ['sessions', 'llm']

  compactNow(): Promise<CompactionResult | null> {
    return Promise.reject(new Error('TestCompaction has no manual path'))
  }

  compactRegion(agent: AgentHandle, options: CompactRegionOptions): Promise<CompactionResult> {
    return this.runRegion({
      session: agent.session, span: { start: options.start, end: options.end }, owner: 'turn', trigger: 'explicit',
      summarize: scriptedSummarize(this.ctx, agent.session.id),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    })
  }
}

/** The text of the final instruction the scripted summariser sends. */
export const TEST_INSTRUCTION = 'write the checkpoint'

/** A summariser through `ctx.llm` and `@logbook/llm-scripted` (purpose `compaction`, provider `scripted`). */
export function scriptedSummarize(ctx: Context, sessionId: string): Summarize {
  return async ({ messages, system, tools, signal }) => {
    const instruction: UserMessage = {
      id: MessageId('instruction'), role: 'user', source: { kind: 'user' }, content: [{ type: 'text', text: TEST_INSTRUCTION }],
    }
    const chunks: StreamChunk[] = []
    for await (const chunk of ctx.llm.stream({
      config: { provider: 'scripted', model: 'summarizer', maxTokens: 512 }, messages: [...messages, instruction],
      ...(system === undefined ? {} : { system }), ...(tools === undefined ? {} : { tools }),
      ...(signal === undefined ? {} : { signal }), sessionId, purpose: 'compaction',
    })) chunks.push(chunk)
    let usage: TokenUsage | undefined
    let text = ''
    for (const chunk of chunks) {
      if (chunk.type === 'text-delta') text += chunk.text
      if (chunk.type === 'usage') usage = chunk.usage
      if (chunk.type === 'finish' && chunk.reason === 'aborted') throw cancelledError(signal)
      if (chunk.type === 'finish' && chunk.reason === 'error') throw new Error(chunk.error?.message ?? 'failed')
    }
    return {
      summary: text, provider: 'scripted', model: 'summarizer', maxTokens: 512, instructionVersion: 1,
      ...(usage === undefined ? {} : { usage }),
    }
  }
}

/** What `boot` returns. */
export interface TestApp {
  readonly app: Context
  readonly compaction: TestCompaction
  readonly logs: string[]
}

/** A real app: store, both companions, the llm seam with a scripted model answering with `script`, the service. */
export async function boot(script: Scripted.ScriptEntry[] = [{ text: 'short summary', repeat: true }]): Promise<TestApp> {
  const { app, logs } = testApp()
  await app.plugin(SessionStore)
  await app.plugin(SessionInvariant)
  await app.plugin(CompactionInvariant)
  await app.plugin(Llm)
  await app.plugin(Scripted, { script })
  await app.plugin(TestCompaction)
  return { app, compaction: app.compaction as TestCompaction, logs }
}

/** A stand-in for an agent handle: compaction's explicit path reads only `session` and `options`. */
export function agentOf(session: Session): AgentHandle {
  return { id: session.id, session, status: 'running', options: { provider: 'scripted', model: 'm' } } as unknown as AgentHandle
}

/** A long filler text of about `tokens` default-estimator tokens. */
export function filler(tokens: number, seed = 'x'): string {
  return `${seed} `.repeat(tokens * 2).slice(0, tokens * 4)
}

/** Builds loop-shaped logs (turns, steps, messages, calls and results) on a published session. */
export class LogBuilder {
  turn = 0
  step = 0
  private n = 0

  constructor(readonly s: Session) {}

  static create(app: Context, id = 's'): LogBuilder {
    return new LogBuilder(app.sessions.create(SessionId(id)))
  }

  private id(prefix: string): MessageId {
    return MessageId(`${prefix}-${++this.n}`)
  }

  system(text = 'be brief'): SessionEvent {
    return this.s.append('system/message', {
      id: this.id('system'), role: 'system', source: { kind: 'system' }, content: [{ type: 'text', text }],
    }, { surfaceOp: 'append' })
  }

  startTurn(text?: string): this {
    this.turn++
    this.step = 0
    this.s.append('turn/start', { turn: this.turn })
    if (text !== undefined) this.user(text)
    return this
  }

  user(text: string): SessionEvent {
    return this.s.append('user/message', {
      id: this.id('user'), role: 'user', source: { kind: 'user' }, content: [{ type: 'text', text }],
    }, { surfaceOp: 'append' })
  }

  startStep(): this {
    this.step++
    this.s.append('step/start', { turn: this.turn, step: this.step })
    return this
  }

  endStep(): this {
    this.s.append('step/end', { turn: this.turn, step: this.step })
    return this
  }

  endTurn(): this {
    this.s.append('turn/end', { turn: this.turn, reason: { kind: 'completed' } })
    return this
  }

  assistant(text: string, calls: readonly string[] = []): SessionEvent {
    return this.s.append('assistant/message', {
      turn: this.turn, step: this.step,
      message: {
        id: this.id('assistant'), role: 'assistant', source: { kind: 'model', provider: 'scripted', model: 'm' },
        content: [
          ...(text === '' ? [] : [{ type: 'text' as const, text }]),
          ...calls.map(call => ({ type: 'tool-call' as const, id: CallId(call), name: 'read', arguments: '{}' })),
        ],
      },
    }, { surfaceOp: 'append', sourceEventSeqs: [] })
  }

  /** `tool/call` then `tool/result` for a call the last assistant message requested. */
  result(callId: string, text = 'done'): SessionEvent {
    const call = this.s.append('tool/call', { turn: this.turn, step: this.step, callId: CallId(callId), name: 'read', arguments: '{}' })
    return this.s.append('tool/result', {
      turn: this.turn, step: this.step,
      message: {
        id: this.id('tool-result'), role: 'user', source: { kind: 'tool', callId: CallId(callId) },
        content: [{ type: 'tool-result', toolCallId: CallId(callId), content: [{ type: 'text', text }] }],
      },
    }, { surfaceOp: 'append', sourceEventSeqs: [call.seq] })
  }

  /** One closed step: an assistant message calling `callId`, its call and result. */
  exchange(callId: string, resultText = 'done', text = 'let me look'): this {
    this.startStep()
    this.assistant(text, [callId])
    this.result(callId, resultText)
    return this.endStep()
  }

  /** One closed turn: prompt, one tool exchange, a final answer. */
  fullTurn(prompt: string, callId: string, resultText = 'done'): this {
    this.startTurn(prompt)
    this.exchange(callId, resultText)
    this.startStep()
    this.assistant(`answer to ${prompt}`)
    return this.endStep().endTurn()
  }
}

/** The event types of `events` from `from` on. */
export function typesFrom(s: Session, from: number): string[] {
  return s.events.slice(from).map(event => event.type)
}
