/**
 * Derived messages (spec 01 §4.8): the surface nodes projected to messages, with an incremental cache that
 * projects only new nodes while no replace has happened.
 */

import type { EventSource } from './event-log.ts'
import type { Message, SessionEvent } from './types.ts'

/**
 * The message an event contributes to the model's view, or `null`: the stored frozen object itself, never a copy.
 * `surfaceOp` is ignored; an `assistant/message` with empty content (a usage-only step) gives `null`.
 */
export function deriveEventMessage(event: SessionEvent): Message | null {
  switch (event.type) {
    case 'system/message':
    case 'user/message':
      return event.data
    case 'assistant/message':
      return event.data.message.content.length === 0 ? null : event.data.message
    case 'tool/result':
      return event.data.message
    default:
      return null
  }
}

/**
 * The derived-message cache of one session: the list and the number of nodes it covers. While the generation is
 * unchanged the nodes only grew at the tail, so only the new ones are projected; a replace rebuilds it.
 */
export class DerivedMessages {
  private messages: Message[] = []
  private covered = 0
  private generation = 0

  /** A fresh array equal to the projection of `nodes`, holding the frozen messages stored in `log`. */
  derive(nodes: readonly number[], generation: number, log: EventSource): Message[] {
    if (generation !== this.generation) {
      this.messages = []
      this.covered = 0
      this.generation = generation
    }
    const messages = this.messages
    for (let i = this.covered; i < nodes.length; i++) {
      const message = deriveEventMessage(log.at(nodes[i]!)!)
      if (message !== null) messages.push(message)
    }
    this.covered = nodes.length
    return messages.slice()
  }
}
