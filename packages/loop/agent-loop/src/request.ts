/**
 * What a step's request is made of (spec 03 §5.2 item 7, §5.3): the config and tool schemas the options allow,
 * the system head, and the `request/header` / `request/context` records logged before each attempt.
 */

import type { RequestConfig, RequestHeader, Session, ToolSchema } from '@logbook/session'
import type { LoopRuntime } from './runtime.ts'
import type { AgentOptions } from './types.ts'

/** Structural equality of JSON values (lossless JSON, 01 §3.2), key order ignored; absent equals `undefined`. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]))
  }
  const left = a as { readonly [key: string]: unknown }
  const right = b as { readonly [key: string]: unknown }
  const keys = Object.keys(left).filter(key => left[key] !== undefined)
  return keys.length === Object.keys(right).filter(key => right[key] !== undefined).length
    && keys.every(key => Object.hasOwn(right, key) && jsonEqual(left[key], right[key]))
}

/** `{ provider, model, maxTokens? }` of `options`. */
export function requestConfig(options: AgentOptions): RequestConfig {
  return options.maxTokens === undefined
    ? { provider: options.provider, model: options.model }
    : { provider: options.provider, model: options.model, maxTokens: options.maxTokens }
}

/** Schemas of the tools `options` allows: every registered tool, or the registered ones among `options.tools`. */
export function allowedSchemas(runtime: LoopRuntime, options: AgentOptions): ToolSchema[] {
  return options.tools === undefined ? runtime.tools.schemas() : runtime.tools.schemas(options.tools)
}

/** The text of surface node 0 when it is a `system/message` (text blocks joined by `\n`), else `undefined`. */
export function systemText(session: Session): string | undefined {
  const head = session.surface.nodes[0]
  const event = head === undefined ? undefined : session.events[head]
  if (event?.type !== 'system/message') return undefined
  return event.data.content.map(block => block.text).join('\n')
}

/** The header state of one handle: whether it has logged its first header yet. */
export interface HeaderState {
  headerLogged: boolean
}

/**
 * Log `request/header` when required — the handle's first request (`initial` on a log without header, else
 * `resume`), later only when the header deep-differs from the newest logged one (`change`) — then
 * `request/context` when provider, model or context window differ from the newest logged context.
 */
export function logRequestRecords(
  state: HeaderState, session: Session, runtime: LoopRuntime, config: RequestConfig, tools: readonly ToolSchema[],
): void {
  const header: RequestHeader = tools.length > 0 ? { config, tools } : { config }
  const logged = session.requestHeader()
  if (!state.headerLogged) {
    session.append('request/header', { header, reason: logged === undefined ? 'initial' : 'resume' })
    state.headerLogged = true
  } else if (!jsonEqual(header, logged)) {
    session.append('request/header', { header, reason: 'change' })
  }
  const reported = runtime.llm.modelInfo(config.provider, config.model)?.contextWindow
  const window = Number.isSafeInteger(reported) && reported! > 0 ? reported : undefined
  const context = session.requestContext()
  if (context === undefined || context.provider !== config.provider || context.model !== config.model
    || context.contextWindow !== window) {
    session.append('request/context', window === undefined
      ? { provider: config.provider, model: config.model }
      : { provider: config.provider, model: config.model, contextWindow: window })
  }
}
