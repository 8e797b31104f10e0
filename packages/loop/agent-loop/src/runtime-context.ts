/**
 * The runtime-context message (spec 03 §5.6): a `user/message` with source `{ kind: 'runtime-context', sections }`
 * carrying the rendered sections of the request's dynamic context. Before the first prompt of a turn and before
 * every model request the loop renders the context and appends it only when the text differs from the retained
 * one — the newest runtime-context message still on the surface, learned from `session/event` (the loop's appends
 * and everyone else's; a compaction or a prune that shadows it makes the next request inject it again) and rebuilt
 * from the surface on create, resume and fork. What the model sees is exactly what is logged.
 */

import {
  isReplacementSurfaceEvent, isSurfaceEvent, type MessageId, type Session, type SessionEvent, type UserMessage,
} from '@logbook/session'
import { renderSections, type RenderedSection } from './context-sections.ts'
import type { LoopRuntime } from './runtime.ts'
import type { RuntimeContextMessage } from './types.ts'

/** The source kind of the runtime-context message. */
export const RUNTIME_CONTEXT_KIND = 'runtime-context'

declare module '@logbook/session' {
  interface MessageSourceMap {
    'runtime-context': { readonly kind: 'runtime-context'; readonly sections: readonly string[] }
  }
}

/** The message's data when `event` is a runtime-context `user/message` on some surface, else `undefined`. */
function asContext(event: SessionEvent | undefined): RuntimeContextMessage | undefined {
  if (event?.type !== 'user/message' || !isSurfaceEvent(event)) return undefined
  const { source, content } = event.data
  if (source.kind !== RUNTIME_CONTEXT_KIND) return undefined
  const sections = (source as { sections?: unknown }).sections
  const text = content.map(block => (block.type === 'text' ? block.text : '')).join('\n')
  return { seq: event.seq, sections: Array.isArray(sections) ? sections.filter((s): s is string => typeof s === 'string') : [], text }
}

/** True iff `event` is a runtime-context `user/message`. */
export function isRuntimeContextMessage(event: SessionEvent): boolean {
  return asContext(event) !== undefined
}

/** The newest runtime-context message on `session`'s surface, or `undefined`. */
export function retainedRuntimeContext(session: Session): RuntimeContextMessage | undefined {
  const { nodes } = session.surface
  const events = session.events
  for (let i = nodes.length - 1; i >= 0; i--) {
    const found = asContext(events[nodes[i]!])
    if (found !== undefined) return found
  }
  return undefined
}

/** The message text: every section as `<name>` … `</name>`, inside `<runtime-context>`. */
export function formatRuntimeContext(sections: readonly RenderedSection[]): string {
  const body = sections.map(section => `<${section.name}>\n${section.text}\n</${section.name}>`).join('\n')
  return `<runtime-context>\n${body}\n</runtime-context>`
}

/** What one agent knows the model last saw, kept current from its session's committed events. */
export class ContextTracker {
  retained: RuntimeContextMessage | undefined

  constructor(session: Session) {
    this.retained = retainedRuntimeContext(session)
  }

  /** Follow one committed event: a new context message is retained; a replace may have shadowed the retained one. */
  observe(session: Session, event: SessionEvent): void {
    const context = asContext(event)
    if (context !== undefined) {
      this.retained = context
      return
    }
    if (this.retained !== undefined && isReplacementSurfaceEvent(event) && !session.surface.nodes.includes(this.retained.seq)) {
      this.retained = retainedRuntimeContext(session)
    }
  }
}

/** What `ensureRuntimeContext` needs from its agent. */
export interface ContextHost {
  readonly runtime: LoopRuntime
  readonly session: Session
  readonly context: ContextTracker
  /** Run `append` as one of the loop's own appends (not input from another client). */
  own<T>(append: () => T): T
}

/** The agent's working directory: the session header's `cwd`, else the process's. */
export function agentCwd(session: Session): string {
  return session.header.cwd ?? process.cwd()
}

/**
 * Render the runtime context and append it when it differs from the retained one; nothing when disabled, when no
 * section renders, or when `signal` aborted meanwhile. Resolves to the appended event's seq, or `undefined`.
 */
export async function ensureRuntimeContext(host: ContextHost, signal: AbortSignal): Promise<number | undefined> {
  const { runtime, session } = host
  const config = runtime.config.runtimeContext
  if (!config.enabled) return undefined
  const input = { session, cwd: agentCwd(session), now: Date.now() }
  const warn = (text: string): void => runtime.warnOnce(`agent "${session.id}": ${text}`)
  const sections = await renderSections(config, runtime.contextSections.list(), input, warn)
  if (sections.length === 0 || signal.aborted) return undefined
  const text = formatRuntimeContext(sections)
  if (host.context.retained?.text === text) return undefined
  const message: UserMessage = {
    id: `user-${session.seq}` as MessageId,
    role: 'user',
    source: { kind: RUNTIME_CONTEXT_KIND, sections: sections.map(section => section.name) },
    content: [{ type: 'text', text }],
  }
  return host.own(() => session.append('user/message', message, { surfaceOp: 'append' }).seq)
}
