/** Configuration of the OpenAI-compatible adapter (spec 03 §3.4). */

import Schema from '@deepseek-ai/schemastery'

/** What the adapter knows about one served model. */
export interface ModelEntry {
  id: string
  contextWindow?: number
  maxTokens?: number
}

/** The resolved configuration (README, "Config"). */
export interface Config {
  provider: string
  baseUrl: string
  apiKey?: string
  apiKeyEnv: string
  models?: ModelEntry[]
  headers?: Record<string, string>
  timeoutMs: number
  maxTokensField: 'max_tokens' | 'max_completion_tokens'
  /** Send reasoning back as `reasoning_content` on earlier tool-calling assistant messages; absent: DeepSeek only. */
  reasoningRoundTrip?: boolean
}

/** The configuration as written: only `baseUrl` is required. */
export type ConfigInput = Partial<Config> & Pick<Config, 'baseUrl'>

/** Validates the configuration and applies the defaults of the README's Config table. */
export const Config: Schema<ConfigInput, Config> = Schema.object({
  provider: Schema.string().min(1).default('openai').description('Provider name the adapter registers under.'),
  baseUrl: Schema.string().pattern(/^https?:\/\/[^/]/).required().description('API root, e.g. https://api.openai.com/v1.'),
  apiKey: Schema.string().description('API key; when absent the environment variable `apiKeyEnv` is read.'),
  apiKeyEnv: Schema.string().default('OPENAI_API_KEY').description('Environment variable holding the API key.'),
  models: Schema.array(Schema.object({
    id: Schema.string().required(),
    contextWindow: Schema.natural().min(1),
    maxTokens: Schema.natural().min(1),
  })).description('Models with known context windows and output limits.'),
  headers: Schema.dict(Schema.string()).description('Extra request headers.'),
  timeoutMs: Schema.natural().min(1).default(120000).description('Longest wait for the next bytes from the server.'),
  maxTokensField: Schema.union(['max_tokens', 'max_completion_tokens']).default('max_tokens')
    .description('Body field carrying `maxTokens`.'),
  reasoningRoundTrip: Schema.boolean()
    .description('Send reasoning back as `reasoning_content` on tool-calling assistant messages (default: on for DeepSeek).'),
})

const DEEPSEEK_HOST = /(^|\.)deepseek\.com$/i

/**
 * True when `config` talks to DeepSeek: the provider name contains `deepseek` (any case) or the base URL's host is
 * `deepseek.com` or one of its subdomains.
 */
export function isDeepSeek(config: Pick<Config, 'provider' | 'baseUrl'>): boolean {
  if (/deepseek/i.test(config.provider)) return true
  try {
    return DEEPSEEK_HOST.test(new URL(config.baseUrl).hostname)
  } catch {
    // The schema admits only http(s) URLs with a host; an unparsable one is simply not DeepSeek.
    return false
  }
}

/** Whether reasoning goes back on tool-calling assistant messages: the option, else on for DeepSeek (README). */
export function roundTripsReasoning(config: Pick<Config, 'provider' | 'baseUrl' | 'reasoningRoundTrip'>): boolean {
  return config.reasoningRoundTrip ?? isDeepSeek(config)
}
