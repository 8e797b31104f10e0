/** Shared builders for the loop tests: a real app with store, companions, llm + scripted model, tools and the loop. */

import { Context, Logger, type Exporter, type Fiber } from '@deepseek-ai/cordis'
import Llm from '@logbook/llm'
import SessionStore, { type Session, type SessionEvent } from '@logbook/session'
import * as SessionInvariant from '@logbook/session/invariant'
import MemorySessionPersistence from '@logbook/session-persistence'
import Tools, { type ToolDefinition } from '@logbook/tools'
import * as Scripted from '@logbook/llm-scripted'
import type { ScriptEntry } from '@logbook/llm-scripted'
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
  const app = new Context()
  const logs: string[] = []
  const exporter: Exporter = {
    colors: false,
    levels: { default: 3 },
    export: message => logs.push(Logger.format(exporter, message)),
  }
  app.logger.exporter(exporter)
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

/** The log as type names, with each run of `assistant/chunk`s collapsed to `chunks`. */
export function shape(events: readonly SessionEvent[], from = 0): string[] {
  const out: string[] = []
  for (const event of events.slice(from)) {
    const name = event.type === 'assistant/chunk' ? 'chunks' : event.type
    if (name === 'chunks' && out.at(-1) === 'chunks') continue
    out.push(name)
  }
  return out
}

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

/** A promise with its resolver, for tools and listeners the test releases. */
export function deferred<T = void>(): { promise: Promise<T>; resolve(value: T): void } {
  let resolve!: (value: T) => void
  const promise = new Promise<T>(r => { resolve = r })
  return { promise, resolve }
}

/** Resolve after every pending microtask and the next macrotask. */
export function tick(ms = 0): Promise<void> {
  return new Promise(resolve => setTimeout(resolve, ms))
}

/** The error `promise` rejects with (the test fails when it resolves). */
export async function rejection(promise: Promise<unknown>): Promise<{ code?: string; message: string; name: string; cause?: unknown }> {
  try {
    await promise
  } catch (error) {
    return error as { code?: string; message: string; name: string }
  }
  throw new Error('expected a rejection')
}
