/** Shared test views of imported sessions: the transcript a person reads, what the model sees, and a real store. */

import { fileURLToPath } from 'node:url'
import { Context } from '@deepseek-ai/cordis'
import * as Compaction from '@logbook/compaction'
import * as CompactionInvariant from '@logbook/compaction/invariant'
import SessionStore, {
  deriveEventMessage, foldSurface, isAppendSurfaceEvent, type ImageBlock, type Message, type SessionEvent, type TextBlock,
} from '@logbook/session'
import * as SessionInvariant from '@logbook/session/invariant'
import type { ImportedSession } from '../src/index.ts'

/** The path of a fixture file. */
export function fixture(name: string): string {
  return fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url))
}

/** One message as a line: `user: …`, `assistant: …` (reasoning, text, calls), `tool <id>: …`, `system: …`. */
export function line(message: Message): string {
  switch (message.role) {
    case 'system':
      return `system: ${message.content.map(block => block.text).join(' ')}`
    case 'assistant':
      return `assistant: ${message.content.map(block => {
        switch (block.type) {
          case 'text': return block.text
          case 'reasoning': return `[thinking] ${block.text}`
          case 'tool-call': return `call ${block.name} ${block.id} ${block.arguments}`
          default: return `[${block.type}]`
        }
      }).join(' | ')}`
    case 'user': {
      const [first] = message.content
      if (message.source.kind === 'tool' && first?.type === 'tool-result') {
        const body = first.content.map(part => (part.type === 'text' ? part.text : `[image ${part.image.mediaType}]`)).join(' ')
        return `tool ${first.toolCallId}${first.isError === true ? ' (error)' : ''}: ${body}`
      }
      const kind = message.source.kind === 'user' ? 'user' : `user(${(message.source as { plugin?: string }).plugin ?? message.source.kind})`
      const parts = message.content as readonly (TextBlock | ImageBlock)[]
      return `${kind}: ${parts.map(part => (part.type === 'text' ? part.text : `[image ${part.image.mediaType}]`)).join(' ')}`
    }
  }
}

/** Every message ever shown (append-origin, shadowed ones included), as lines. */
export function transcript(events: readonly SessionEvent[]): string[] {
  return events.flatMap(event => {
    if (!isAppendSurfaceEvent(event)) return []
    const message = deriveEventMessage(event)
    return message === null ? [] : [line(message)]
  })
}

/** What the model sees next (the surface), as lines. */
export function surface(events: readonly SessionEvent[]): string[] {
  return foldSurface(events).nodes.flatMap(seq => {
    const message = deriveEventMessage(events[seq]!)
    return message === null ? [] : [line(message)]
  })
}

/** The events of `types`, in order. */
export function ofType(events: readonly SessionEvent[], ...types: string[]): SessionEvent[] {
  return events.filter(event => types.includes(event.type))
}

/**
 * Create every imported session in a real store with the session and compaction companions loaded, which replay
 * each seed through their relation rules; returns the store's sessions.
 */
export async function createInStore(sessions: readonly ImportedSession[]): Promise<readonly SessionEvent[][]> {
  const ctx = new Context()
  const fibers = [ctx.plugin(SessionStore), ctx.plugin(SessionInvariant), ctx.plugin(Compaction), ctx.plugin(CompactionInvariant)]
  for (const fiber of fibers) await fiber
  try {
    return sessions.map(session => {
      const { version: _version, id, ...meta } = session.header
      const created = ctx.sessions.create(id, { seed: session.events, meta, inheritedEventCount: session.inheritedEventCount })
      return [...created.events]
    })
  } finally {
    for (const fiber of fibers.reverse()) await fiber.dispose()
  }
}
