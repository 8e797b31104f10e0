/** Builders for the policy tests: a real app with store, memory persistence, llm, tools, the loop and the policy. */

import type { Context } from '@deepseek-ai/cordis'
import Agents, { type AgentLoopConfig } from '@logbook/agent-loop'
import Llm from '@logbook/llm'
import SessionStore from '@logbook/session'
import * as SessionInvariant from '@logbook/session/invariant'
import MemorySessionPersistence from '@logbook/session-persistence'
import Tools, { type ToolDefinition } from '@logbook/tools'
import * as Scripted from '@logbook/llm-scripted'
import type { ScriptEntry } from '@logbook/llm-scripted'
import { testApp } from '@logbook/test-kit'
import * as Policy from '../src/index.ts'
import * as PolicyInvariant from '../src/invariant.ts'
import type { CheckpointPolicyConfig } from '../src/index.ts'

export interface PolicyEnv {
  readonly app: Context
  readonly logs: string[]
  /** The durable cursor per session id, from `persistence/committed`. */
  readonly cursor: (id: string) => number
  readonly policy: Awaited<ReturnType<Context['plugin']>>
}

export interface PolicyBoot {
  readonly store: string
  readonly script?: readonly ScriptEntry[]
  readonly tools?: readonly ToolDefinition<object>[]
  readonly policy?: Partial<CheckpointPolicyConfig>
  readonly loop?: Partial<AgentLoopConfig>
}

/**
 * A real app: store + its companion, memory persistence whose window never expires during a test (so only
 * checkpoints write), the policy + its companion, llm + the scripted model, tools, the loop.
 */
export async function bootPolicy(options: PolicyBoot): Promise<PolicyEnv> {
  const { app, logs } = testApp()
  const cursors = new Map<string, number>()
  await app.plugin(SessionStore)
  await app.plugin(SessionInvariant)
  await app.plugin(MemorySessionPersistence, { storeName: options.store, writeBatchMaxDelayMs: 60_000 })
  app.on('persistence/committed', event => void cursors.set(event.sessionId, event.toSeq))
  const policy = await app.plugin(Policy, options.policy ?? {})
  await app.plugin(PolicyInvariant)
  await app.plugin(Llm)
  await app.plugin(Scripted, { script: (options.script ?? []) as ScriptEntry[] })
  await app.plugin(Tools)
  for (const tool of options.tools ?? []) app.tools.register(tool)
  await app.plugin(Agents, options.loop ?? {})
  return { app, logs, cursor: id => cursors.get(id) ?? 0, policy }
}

export const OPTIONS = { provider: 'scripted', model: 'm1' } as const

/** A coded failure as a `session/flush` listener throws it. */
export function diskFull(): Error {
  return Object.assign(new Error('disk full'), { code: 'STORE_IO' })
}

export { deferred, shape } from '@logbook/test-kit'
