/**
 * The embedded default app (spec 03 §6.1): session store, JSONL persistence at `--dir` (or a SQLite file for
 * `verify <file>`), checkpoint policy, projections, session search, `llm` with the scripted model and its bundled demo script,
 * tools with the demo tools, compaction-basic and the agent loop, plus the invariant companions of the session
 * core, compaction and the loop.
 */

import { Context } from '@deepseek-ai/cordis'
import AgentLoop from '@logbook/agent-loop'
import * as AgentLoopInvariant from '@logbook/agent-loop/invariant'
import * as CompactionInvariant from '@logbook/compaction/invariant'
import CompactionBasic from '@logbook/compaction-basic'
import Llm from '@logbook/llm'
import * as LlmScripted from '@logbook/llm-scripted'
import SessionStore from '@logbook/session'
import * as SessionInvariant from '@logbook/session/invariant'
import * as CheckpointPolicy from '@logbook/session-checkpoint-policy'
import JsonlSessionPersistence from '@logbook/session-persistence-jsonl'
import SqliteSessionPersistence from '@logbook/session-persistence-sqlite'
import SessionProjections from '@logbook/session-projection'
import SessionSearch from '@logbook/session-search'
import Tools from '@logbook/tools'
import * as DemoTools from '../demo/tools.ts'
import { DEMO_SCRIPT } from '../demo/script.ts'
import { CliError, oneLine } from '../errors.ts'
import type { Output } from '../io.ts'
import { installLogExporter } from '../log-exporter.ts'
import { createApp, type App, type Disposable } from './app.ts'

/** Where the embedded app stores sessions. */
export type EmbeddedStore =
  | { readonly kind: 'jsonl'; readonly root: string }
  | { readonly kind: 'sqlite'; readonly path: string }

/** Choices a command makes for the embedded app. */
export interface EmbeddedOptions {
  /** Turn on the agent loop's runtime-context message (instructions, cwd, date); `chat` does. */
  readonly runtimeContext?: boolean
}

/** Provider name of the embedded scripted model. */
export const DEMO_PROVIDER = 'scripted'
/** Model name the demo uses. */
export const DEMO_MODEL = 'demo'

/**
 * Start the embedded app on `store`; every plugin is awaited in order.
 * @throws CliError `BOOT_FAILED` naming the plugin that failed to start (the store is unusable, …).
 */
export async function openEmbeddedApp(store: EmbeddedStore, output: Output, options: EmbeddedOptions = {}): Promise<App> {
  const ctx = new Context()
  const exporter = installLogExporter(ctx, output)
  // A plugin that fails to start logs its error too; hold records so the failure is reported once, as one line.
  exporter.hold()
  const plugins: Disposable[] = []
  const app = createApp(ctx, plugins, exporter)
  const load = async (label: string, plugin: any, config?: unknown): Promise<void> => {
    const fiber = ctx.plugin(plugin, config)
    plugins.push({ dispose: () => fiber.dispose() })
    try {
      await fiber
    } catch (error) {
      exporter.discard()
      await app.dispose()
      throw new CliError('BOOT_FAILED', `${label} failed to start: ${oneLine(error)}`, { cause: error })
    }
  }
  await load('@logbook/session', SessionStore)
  await load('@logbook/session/invariant', SessionInvariant)
  if (store.kind === 'jsonl') await load('@logbook/session-persistence-jsonl', JsonlSessionPersistence, { root: store.root })
  else await load('@logbook/session-persistence-sqlite', SqliteSessionPersistence, { path: store.path })
  await load('@logbook/session-projection', SessionProjections)
  await load('@logbook/llm', Llm)
  await load('@logbook/llm-scripted', LlmScripted, { provider: DEMO_PROVIDER, script: DEMO_SCRIPT })
  await load('@logbook/tools', Tools)
  await load('demo tools', DemoTools)
  await load('@logbook/agent-loop', AgentLoop, options.runtimeContext === true ? { runtimeContext: { enabled: true } } : undefined)
  await load('@logbook/agent-loop/invariant', AgentLoopInvariant)
  await load('@logbook/session-checkpoint-policy', CheckpointPolicy)
  await load('@logbook/compaction-basic', CompactionBasic)
  await load('@logbook/compaction/invariant', CompactionInvariant)
  // Last, so it is disposed first: its final batch may read logs whose event types the plugins above register.
  await load('@logbook/session-search', SessionSearch)
  exporter.release()
  return app
}
