/**
 * Shared builders for the compaction-basic tests: a real app with the store, every companion, the llm seam with the
 * scripted model, tools, the loop and `BasicCompaction`; plus helpers to read what happened.
 */

import type { Context, Fiber } from '@deepseek-ai/cordis'
import Agents, { type AgentHandle, type AgentLoopConfig, type AgentOptions } from '@logbook/agent-loop'
import * as LoopInvariant from '@logbook/agent-loop/invariant'
import * as CompactionInvariant from '@logbook/compaction/invariant'
import Llm, { type LlmRequest } from '@logbook/llm'
import SessionStore, { type Message, type Session, type SessionEvent } from '@logbook/session'
import * as SessionInvariant from '@logbook/session/invariant'
import * as Scripted from '@logbook/llm-scripted'
import type { ScriptEntry } from '@logbook/llm-scripted'
import { testApp, shape as typeNames } from '@logbook/test-kit'
import Tools, { type ToolDefinition } from '@logbook/tools'
import BasicCompaction, { type CompactionBasicConfigInput } from '../src/index.ts'
import * as BasicInvariant from '../src/invariant.ts'

export type { ScriptEntry }

export interface BootOptions {
  readonly script: readonly ScriptEntry[]
  readonly compaction?: CompactionBasicConfigInput
  readonly loop?: Partial<AgentLoopConfig>
  readonly tools?: readonly ToolDefinition<any>[]
  /** Another persistence plugin (memory, JSONL) and its config. */
  readonly persistence?: { readonly plugin: unknown; readonly config: unknown }
  /** Called after the store and companions are loaded, before the model, tools, loop and compaction. */
  readonly before?: (app: Context) => void | Promise<void>
}

export interface Env {
  readonly app: Context
  readonly compaction: BasicCompaction
  /** Every warn-or-above log line, formatted. */
  readonly logs: string[]
  /** Every model request, in order. */
  readonly requests: LlmRequest[]
  readonly persistence?: Fiber
}

/** A real app: store, the four companions, persistence (optional), llm, scripted model, tools, loop, compaction. */
export async function boot(options: BootOptions): Promise<Env> {
  const { app, logs } = testApp()
  await app.plugin(SessionStore)
  await app.plugin(SessionInvariant)
  await app.plugin(LoopInvariant)
  await app.plugin(CompactionInvariant)
  await app.plugin(BasicInvariant)
  let persistence: Fiber | undefined
  if (options.persistence !== undefined) {
    persistence = await app.plugin(options.persistence.plugin as never, options.persistence.config as never)
  }
  await options.before?.(app)
  await app.plugin(Llm)
  await app.plugin(Scripted, { script: options.script as ScriptEntry[] })
  await app.plugin(Tools)
  for (const tool of options.tools ?? []) app.tools.register(tool)
  await app.plugin(Agents, options.loop ?? {})
  await app.plugin(BasicCompaction, options.compaction ?? {})
  const requests: LlmRequest[] = []
  app.on('llm/before-stream', request => void requests.push(request))
  return { app, compaction: app.compaction as BasicCompaction, logs, requests, ...(persistence === undefined ? {} : { persistence }) }
}

export const OPTIONS: AgentOptions = { provider: 'scripted', model: 'm1' }

/** A config with one known context window for the scripted model. */
export function windowOf(contextWindow: number, extra: CompactionBasicConfigInput = {}): CompactionBasicConfigInput {
  return { contextWindows: [{ provider: 'scripted', model: 'm1', contextWindow }], ...extra }
}

/** An agent on a fresh session. */
export function agent(env: Env, sessionId = 's', options: AgentOptions = OPTIONS): Promise<AgentHandle> {
  return env.app.agents.create({ sessionId, options })
}

/** Text of about `tokens` default-estimator tokens (4 ASCII bytes each). */
export function filler(tokens: number, word = 'lorem'): string {
  return `${word} `.repeat(Math.ceil((tokens * 4) / (word.length + 1))).slice(0, tokens * 4)
}

/** A tool that answers `text`. */
export function tool(name: string, text: string | (() => string)): ToolDefinition<any> {
  return {
    name, description: `the ${name} tool`, parameters: { type: 'object' },
    execute: () => (typeof text === 'string' ? text : text()),
  }
}

/** Type names of `session.events` from `from`, with runs of chunks collapsed to `chunks`. */
export function shape(session: Session, from = 0): string[] {
  return typeNames(session.events, from)
}

/** The events of one type. */
export function ofType<T extends SessionEvent['type']>(session: Session, type: T): SessionEvent<T>[] {
  return session.events.filter(event => event.type === type) as unknown as SessionEvent<T>[]
}

export { rejection } from '@logbook/test-kit'

/** Log lines that contain `text`. */
export function warnings(env: Env, text: string): string[] {
  return env.logs.filter(line => line.includes(text))
}

/**
 * Tool pairing of a message list: every tool call is answered by exactly one later result and every result answers
 * an earlier call. Returns the problems found (empty when paired).
 */
export function pairingProblems(messages: readonly Message[]): string[] {
  const open = new Set<string>()
  const problems: string[] = []
  for (const message of messages) {
    for (const block of message.content) {
      if (block.type === 'tool-call') open.add(block.id)
      if (block.type === 'tool-result') {
        if (!open.delete(block.toolCallId)) problems.push(`result ${block.toolCallId} has no call`)
      }
    }
  }
  for (const id of open) problems.push(`call ${id} has no result`)
  return problems
}
