/**
 * `@logbook/llm-openai` — streaming chat completions against any OpenAI-compatible server (OpenAI, DeepSeek,
 * vLLM, llama.cpp, Ollama), registered on `ctx.llm` (spec 03 §3.4).
 */

import type { Context } from '@deepseek-ai/cordis'
import type {} from '@logbook/llm'
import { createOpenAiAdapter } from './adapter.ts'
import { Config, type ConfigInput } from './config.ts'

/** The plugin's name (its fiber and logger name). */
export const name = 'llm-openai'
/** The plugin loads once `ctx.llm` is available. */
export const inject = ['llm']
export { Config, isDeepSeek, roundTripsReasoning, type ConfigInput, type ModelEntry } from './config.ts'

/** Register the adapter on `ctx.llm` for as long as the plugin is loaded. */
export function apply(ctx: Context, input: ConfigInput): void {
  // Cordis has already validated `input`; resolving again is idempotent and types the defaults.
  ctx.llm.register(createOpenAiAdapter(Config(input) as Config))
}

export { wireMessage, type WireMessage } from './mapping.ts'
