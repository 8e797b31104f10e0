/**
 * `@logbook/llm-scripted` — a deterministic scripted model registered on `ctx.llm` (spec 03 §3.3), for demos,
 * tests and replay.
 */

import type { Context } from '@deepseek-ai/cordis'
import Schema from '@deepseek-ai/schemastery'
import type {} from '@logbook/llm'
import { createScriptedAdapter } from './adapter.ts'
import { baseDirectory, loadScriptFile, parseScript } from './script.ts'
import type { ScriptSource } from './types.ts'

/** The plugin's resolved configuration (README, "Config"). */
export interface Config {
  provider: string
  script: string | ScriptSource
  contextWindow: number
  chunkSize: number
}

/** The configuration as written: everything but `script` has a default. */
export type ConfigInput = Partial<Config> & Pick<Config, 'script'>

/** The plugin's name (its fiber and logger name). */
export const name = 'llm-scripted'
/** The plugin loads once `ctx.llm` is available. */
export const inject = ['llm']

/** Validates the configuration and applies the defaults of the README's Config table. */
export const Config = Schema.object({
  provider: Schema.string().min(1).default('scripted').description('Provider name the adapter registers under.'),
  script: Schema.any().required()
    .description('Path of a JSON script file (relative paths resolve against the config file\'s folder), or the script inline.'),
  contextWindow: Schema.natural().min(1).default(32768).description('Context window reported for every model.'),
  chunkSize: Schema.natural().min(1).default(8).description('Code points per delta chunk.'),
})

/**
 * Validate the script (a bad one fails the plugin, naming the entry index) and register the adapter on `ctx.llm`
 * for as long as the plugin is loaded.
 * @throws ScriptError `INVALID_SCRIPT`
 */
export function apply(ctx: Context, input: ConfigInput): void {
  // Cordis has already validated `input`; resolving again is idempotent and types the defaults.
  const config = Config(input) as Config
  const entries = typeof config.script === 'string'
    ? loadScriptFile(config.script, baseDirectory(ctx.baseUrl))
    : parseScript(config.script)
  ctx.llm.register(createScriptedAdapter({
    provider: config.provider,
    contextWindow: config.contextWindow,
    chunkSize: config.chunkSize,
    entries,
  }))
}

export { createScriptedAdapter, type ScriptedAdapterOptions } from './adapter.ts'
export { parseScript } from './script.ts'
export { ScriptError, type ScriptErrorCode } from './errors.ts'
export type { ScriptEntry, ScriptFailure, ScriptMatch, ScriptResponse, ScriptSource, ScriptToolCall } from './types.ts'
