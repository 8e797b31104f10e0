/**
 * Building a request from a session's surface (spec 03 §3.1, §5.2 item 7): derived messages, with a node-0
 * `system/message` lifted out as `system`.
 */

import type { Message } from '@logbook/session'
import type { LlmRequest, SurfaceMessages, SurfaceSource } from './types.ts'

/**
 * The model-visible messages of `session`, in surface order, as the same frozen objects the log holds. When
 * surface node 0 is a `system/message` it is left out of `messages` and returned as `system`, its text blocks
 * joined by `\n`; a system message at any later position stays in `messages`.
 */
export function surfaceMessages(session: SurfaceSource): SurfaceMessages {
  const derived = session.deriveMessages()
  const head = session.surface.nodes[0]
  const headEvent = head === undefined ? undefined : session.events[head]
  if (headEvent?.type !== 'system/message') return { messages: derived }
  // A system/message always derives to a message, so node 0 is the first derived message.
  const [first, ...rest] = derived as [Message, ...Message[]]
  return { system: first.content.map(part => (part as { text: string }).text).join('\n'), messages: rest }
}

/** What a caller adds to the surface to make a request (everything but `messages`, `system`, `sessionId`). */
export type RequestInit = Omit<LlmRequest, 'messages' | 'system' | 'sessionId'>

/**
 * A request for `session`: `init` plus the session's surface messages (`surfaceMessages`) and its id as
 * `sessionId`. `system` is present only when surface node 0 is a system message.
 */
export function requestFromSession(session: SurfaceSource, init: RequestInit): LlmRequest {
  const { system, messages } = surfaceMessages(session)
  return { ...init, ...(system === undefined ? {} : { system }), messages, sessionId: session.id }
}
