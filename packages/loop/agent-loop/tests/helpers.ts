/** Shared builders for the loop tests: a real app with store, companions, llm + scripted model, tools and the loop. */

import type { Context, Fiber } from '@deepseek-ai/cordis'
import Llm from '@logbook/llm'
import SessionStore, { type Session, type SessionEvent } from '@logbook/session'
import * as SessionInvariant from '@logbook/session/invariant'
import MemorySessionPersistence from '@logbook/session-persistence'
import Tools, { type ToolDefinition } from '@logbook/tools'
import * as Scripted from '@logbook/llm-scripted'
import type { ScriptEntry } from '@logbook/llm-scripted'
import { testApp } from '@logbook/test-kit'
import Agents, { type AgentLoopConfig } from '../src/index.ts'
import * as LoopInvariant from '../src/invariant.ts'

export interface BootOptions {
  readonly script: readonly ScriptEntry[]
  readonly config?: Partial<AgentLoopConfig>
  /** Load the memory backend with this store name (shared by same-named instances). */
  readonly memory?: string
  /** Load another persistence plugin (JSONL, SQLite) with its config. */
  readonly persistence?: { readonly plugin: unknown; readonly config: unknown }
  readonly tools?: readonly ToolDefinition<object>[]
  readonly chunkSize?: number
}

export interface Env {
  readonly app: Context
  readonly logs: string[]
  /** The persistence plugin's fiber, when one was loaded. */
  readonly persistence?: Fiber
  /** The loop plugin's fiber. */
  readonly agents: Fiber
}

/** A real app: store, both companions, persistence (optional), llm, the scripted model, tools and the loop. */
export async function boot(options: BootOptions): Promise<Env> {
  const { app, logs } = testApp()
  await app.plugin(SessionStore)
  await app.plugin(SessionInvariant)
  await app.plugin(LoopInvariant)
  let persistence: Fiber | undefined
  if (options.memory !== undefined) persistence = await app.plugin(MemorySessionPersistence, { storeName: options.memory })
  if (options.persistence !== undefined) {
    persistence = await app.plugin(options.persistence.plugin as never, options.persistence.config as never)
  }
  await app.plugin(Llm)
  await app.plugin(Scripted, { script: options.script as ScriptEntry[], chunkSize: options.chunkSize ?? 8 })
  await app.plugin(Tools)
  for (const tool of options.tools ?? []) app.tools.register(tool)
  const agents = await app.plugin(Agents, options.config ?? {})
  return persistence === undefined ? { app, logs, agents } : { app, logs, persistence, agents }
}

export const OPTIONS = { provider: 'scripted', model: 'm1' } as const

/** The events of `session` of one type. */
export function ofType<T extends SessionEvent['type']>(session: Session, type: T): SessionEvent<T>[] {
  return session.events.filter(event => event.type === type) as unknown as SessionEvent<T>[]
}

/** A tool that answers `reply` (or runs `body`). */
export function tool(name: string, extra: Partial<ToolDefinition<object>> = {}): ToolDefinition<object> {
  return {
    name,
    description: `the ${name} tool`,
    parameters: { type: 'object' },
    execute: () => `${name} ok`,
    ...extra,
  }
}

/**
 * A tool whose body resolves `started` once it runs and then waits until its signal aborts, rejecting with
 * `Error(message)`; it never settles on its own.
 */
export function untilAborted(name: string, started: { resolve(): void }, message: string): ToolDefinition<object> {
  return tool(name, { execute: (_a, { signal }) => new Promise((_resolve, reject) => {
    started.resolve()
    signal.addEventListener('abort', () => reject(new Error(message)))
  }) })
}

export { deferred, rejection, shape, tick } from '@logbook/test-kit'
