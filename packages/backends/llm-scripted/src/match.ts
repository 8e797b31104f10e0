/**
 * Choosing the scripted response for a request (spec 03 §3.3): the first unused entry whose conditions all hold,
 * with use counts kept per session id.
 */

import type { LlmRequest } from '@logbook/llm'
import type { Message } from '@logbook/session'
import type { ScriptResponse } from './types.ts'

function textOf(message: Message): string {
  return message.content
    .filter(part => part.type === 'text')
    .map(part => (part as { text: string }).text)
    .join('\n')
}

/** The text of the last user message that is not a tool result, or `''` when there is none. */
export function lastUserText(messages: readonly Message[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!
    if (message.role === 'user' && message.source.kind !== 'tool') return textOf(message)
  }
  return ''
}

/** The name of the tool whose result is the last message, or `undefined` when the last message is not a result. */
export function lastToolName(messages: readonly Message[]): string | undefined {
  const last = messages[messages.length - 1]
  if (last === undefined || last.source.kind !== 'tool') return undefined
  const result = last.content[0]
  if (result?.type !== 'tool-result') return undefined
  for (let i = messages.length - 2; i >= 0; i--) {
    const message = messages[i]!
    if (message.role !== 'assistant') continue
    for (const part of message.content) {
      if (part.type === 'tool-call' && part.id === result.toolCallId) return part.name
    }
  }
  return undefined
}

/** The purpose a request counts as: its own, else `turn`. */
export function purposeOf(request: LlmRequest): 'turn' | 'compaction' {
  return request.purpose ?? 'turn'
}

function matches(entry: ScriptResponse, request: LlmRequest): boolean {
  const { purpose, lastUserIncludes, afterTool } = entry.match
  if (purpose !== undefined && purpose !== purposeOf(request)) return false
  if (lastUserIncludes !== undefined && !lastUserText(request.messages).includes(lastUserIncludes)) return false
  if (afterTool !== undefined && lastToolName(request.messages) !== afterTool) return false
  return true
}

/** Per-session use counts of a script's entries; the first unused matching entry wins and is counted. */
export class ScriptCursor {
  private readonly uses = new Map<string, number[]>()

  constructor(private readonly entries: readonly ScriptResponse[]) {}

  /** The entry answering `request`, now counted as used once for its session; `undefined` when none is left. */
  take(request: LlmRequest): ScriptResponse | undefined {
    const key = request.sessionId ?? ''
    let counts = this.uses.get(key)
    if (counts === undefined) this.uses.set(key, (counts = this.entries.map(() => 0)))
    for (const entry of this.entries) {
      if (counts[entry.index]! >= entry.times || !matches(entry, request)) continue
      counts[entry.index]!++
      return entry
    }
    return undefined
  }
}
