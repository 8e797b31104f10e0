/**
 * Input from any client in the process (spec 03 §5.7). A `user/message` of source kind `user` that another plugin
 * appends to an idle agent's session starts a turn with it. One appended while the agent is busy (a turn running or
 * queued, maintenance, an orphaned compaction lock) would reach the running turn's next request — possibly between a
 * tool call and its result — so the loop's pre-commit check refuses it (`INPUT_QUEUED`) and logs it as
 * `input/queued`, a log-only event that is never on the surface; each `input/queued` (any client may append one
 * directly) becomes, in log order, the `user/message` of a later turn, citing it. Runtime-context messages,
 * compaction checkpoints and every other source kind never start a turn.
 */

import {
  assertSessionEvent, isAppendSurfaceEvent, messageOf, type MessageId, type Session, type SessionEvent, type UserMessage,
} from '@logbook/session'
import { AgentError } from './errors.ts'
import type { QueuedInput } from './types.ts'

/** The log-only event type of queued input. */
export const INPUT_QUEUED_EVENT = 'input/queued'

declare module '@logbook/session' {
  interface SessionEventMap {
    'input/queued': QueuedInput
  }
}

/** What a turn starts from: a prompt given to `send`, a user message already logged, or a queued input. */
export type TurnInput =
  | { readonly kind: 'prompt'; readonly text: string }
  | { readonly kind: 'logged'; readonly seq: number }
  | { readonly kind: 'queued'; readonly seq: number; readonly input: QueuedInput }

/** The `user/message` a queued input becomes when the carrying event gets `seq`. */
export function queuedMessage(seq: number, input: QueuedInput): UserMessage {
  return { id: `user-${seq}` as MessageId, role: 'user', source: input.source, content: input.content }
}

/**
 * Check an `input/queued` payload with the one event validator, as the `user/message` it will become.
 * @throws AgentError `INVALID_INPUT` naming the seq and the first problem.
 */
export function assertQueuedInput(event: SessionEvent): asserts event is SessionEvent<'input/queued'> {
  const data = event.data as unknown as Record<string, unknown>
  const fail = (detail: string): never => {
    throw new AgentError('INVALID_INPUT', `invalid input/queued at seq ${event.seq}: ${detail}`)
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) fail('data must be an object')
  for (const key of Object.keys(data)) if (key !== 'content' && key !== 'source') fail(`data.${key} is not allowed`)
  if (data.source === undefined) fail('data.source is required')
  if (data.content === undefined) fail('data.content is required')
  const kind = (data.source as { kind?: unknown } | null)?.kind
  if (kind === 'runtime-context') fail('data.source.kind must not be "runtime-context"')
  try {
    assertSessionEvent({
      type: 'user/message', seq: event.seq, time: event.time, surfaceOp: 'append',
      data: queuedMessage(event.seq, data as unknown as QueuedInput),
    })
  } catch (error) {
    // The core names the user message's fields; the queued payload has the same ones under data.
    fail((error as Error).message.replace(/^event "user\/message": /, ''))
  }
}

/** True iff `event` is a user's message that starts a turn (or must be queued): append-origin, source kind `user`. */
export function isUserInput(event: SessionEvent): boolean {
  return event.type === 'user/message' && isAppendSurfaceEvent(event) && event.data.source.kind === 'user'
}

/** The refusal of a user's message to a busy agent, which the loop logs as `input/queued` instead. */
export function inputQueuedError(id: string, busy: string): AgentError {
  return new AgentError('INPUT_QUEUED',
    `agent "${id}" is ${busy}: the message was not appended; it is logged as input/queued and becomes the user/message of a later turn`)
}

/**
 * Append `message`'s source and content as `input/queued` on the next microtask: the refused append is still being
 * checked now, and an append from inside it would be reentrant (01 §3.1 step 1).
 */
export function logQueuedLater(session: Session, message: UserMessage, warn: (text: string) => void): void {
  const { source, content } = message
  queueMicrotask(() => {
    try {
      session.append(INPUT_QUEUED_EVENT, { source, content }, { ignorable: true })
    } catch (error) {
      warn(`a user message could not be queued: ${messageOf(error)}`)
    }
  })
}

/**
 * The `input/queued` events of `events` that no `user/message` cites yet, in log order: input that a previous
 * lifecycle (crash, dispose, fork) left waiting.
 */
export function pendingInputs(events: readonly SessionEvent[]): TurnInput[] {
  const consumed = new Set<number>()
  for (const event of events) {
    if (event.type === 'user/message') for (const seq of event.sourceEventSeqs ?? []) consumed.add(seq)
  }
  const pending: TurnInput[] = []
  for (const event of events) {
    if (event.type !== INPUT_QUEUED_EVENT || consumed.has(event.seq)) continue
    try {
      assertQueuedInput(event)
    } catch {
      continue // a malformed entry (written without the loop's check) is not input; it stays in the log untouched
    }
    pending.push({ kind: 'queued', seq: event.seq, input: event.data })
  }
  return pending
}
