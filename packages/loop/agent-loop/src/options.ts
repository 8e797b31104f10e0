/**
 * Agent options (spec 03 §5.1): validation, and the resolution of missing fields from the newest logged
 * `request/header` for resume and fork.
 */

import type { RequestHeader } from '@logbook/session'
import { AgentError } from './errors.ts'
import type { AgentOptions } from './types.ts'

const KEYS: ReadonlySet<string> = new Set(['provider', 'model', 'maxTokens', 'system', 'tools'])

function invalid(detail: string): AgentError {
  return new AgentError('INVALID_OPTIONS', `invalid agent options: ${detail}`)
}

/**
 * Check the fields present in `value` (unknown keys, types) without requiring any.
 * @throws AgentError `INVALID_OPTIONS` naming the field.
 */
export function checkPartialOptions(value: unknown): Partial<AgentOptions> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid('options must be an object')
  const options = value as Record<string, unknown>
  for (const key of Object.keys(options)) {
    if (!KEYS.has(key)) throw invalid(`unknown option "${key}"`)
  }
  const { provider, model, maxTokens, system, tools } = options
  if (provider !== undefined && (typeof provider !== 'string' || provider === '')) throw invalid('provider must be a non-empty string')
  if (model !== undefined && (typeof model !== 'string' || model === '')) throw invalid('model must be a non-empty string')
  if (maxTokens !== undefined && !(Number.isSafeInteger(maxTokens) && (maxTokens as number) > 0)) {
    throw invalid('maxTokens must be a positive safe integer')
  }
  if (system !== undefined && (typeof system !== 'string' || system === '')) throw invalid('system must be a non-empty string')
  if (tools !== undefined && (!Array.isArray(tools) || !tools.every(name => typeof name === 'string' && name !== ''))) {
    throw invalid('tools must be an array of non-empty strings')
  }
  return options as Partial<AgentOptions>
}

/** A frozen copy with only the present fields, in declaration order. */
function freezeOptions(options: Partial<AgentOptions> & Pick<AgentOptions, 'provider' | 'model'>): AgentOptions {
  const out: { -readonly [K in keyof AgentOptions]: AgentOptions[K] } = { provider: options.provider, model: options.model }
  if (options.maxTokens !== undefined) out.maxTokens = options.maxTokens
  if (options.system !== undefined) out.system = options.system
  if (options.tools !== undefined) out.tools = Object.freeze([...options.tools])
  return Object.freeze(out)
}

/**
 * Validate complete options (`provider` and `model` required) and return a frozen copy.
 * @throws AgentError `INVALID_OPTIONS`.
 */
export function validateOptions(value: unknown): AgentOptions {
  const options = checkPartialOptions(value)
  if (options.provider === undefined) throw invalid('provider is required')
  if (options.model === undefined) throw invalid('model is required')
  return freezeOptions(options as AgentOptions)
}

/**
 * Complete `given` from the newest logged header: `provider`, `model` and `maxTokens` from its config, `tools` from
 * its tool names (a header without tools allows none). `system` is never derived (node 0 stays as logged).
 * @throws AgentError `INVALID_OPTIONS` when a required field is missing and no header supplies it.
 */
export function resolveOptions(given: Partial<AgentOptions> | undefined, header: RequestHeader | undefined): AgentOptions {
  const partial = checkPartialOptions(given ?? {})
  const merged: Partial<{ -readonly [K in keyof AgentOptions]: AgentOptions[K] }> = { ...partial }
  if (header !== undefined) {
    const { provider, model, maxTokens } = header.config
    // A header's maxTokens belongs to its model: it is taken only when the model comes from the header too.
    const sameModel = merged.provider === undefined && merged.model === undefined
    merged.provider ??= provider
    merged.model ??= model
    if (sameModel && merged.maxTokens === undefined && maxTokens !== undefined) merged.maxTokens = maxTokens
    merged.tools ??= (header.tools ?? []).map(tool => tool.name)
  }
  if (merged.provider === undefined || merged.model === undefined) {
    throw invalid('provider and model are required (no request/header is logged to take them from)')
  }
  return freezeOptions(merged as AgentOptions)
}
