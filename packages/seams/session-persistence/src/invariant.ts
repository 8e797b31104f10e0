/**
 * The `./invariant` companion of `@logbook/session-persistence` (spec 02 §8). It observes the diagnostic events after
 * commit and logs each violation at error level as `session-persistence-invariant: <detail>` (it cannot veto):
 * (a) a live writer's commits are contiguous, never pass `session.seq`, and store the live prefix's own objects;
 * (b) a handle's commits are contiguous and each changes the revision; (c) at most one claim per id.
 */
import type { Context } from '@deepseek-ai/cordis'
import type { SessionId } from '@logbook/session'
import './events.ts'
import type { PersistenceCommittedEvent } from './types.ts'

/** Plugin name. */
export const name = 'session-persistence-invariant'
/** Observed services. */
export const inject = ['sessions', 'sessionPersistence']

interface OwnerTrace {
  toSeq: number
  revision: string
}

/** The violations of one commit given the owner's previous commit (pure; exported for tests). */
export function commitViolations(
  event: PersistenceCommittedEvent,
  previous: OwnerTrace | undefined,
  live: { readonly seq: number; readonly events: readonly unknown[] } | undefined,
): string[] {
  const problems: string[] = []
  const id = event.sessionId
  if (previous !== undefined && event.fromSeq !== previous.toSeq) {
    problems.push(`session "${id}": ${event.source} commit starts at seq ${event.fromSeq}; the previous one ended at ${previous.toSeq}`)
  }
  if (event.toSeq !== event.fromSeq + event.events.length) {
    problems.push(`session "${id}": commit ${event.fromSeq}..${event.toSeq} carries ${event.events.length} events`)
  }
  if (event.source === 'handle' && previous !== undefined && previous.revision === event.revision) {
    problems.push(`session "${id}": handle commit kept revision ${event.revision}`)
  }
  if (event.source === 'live' && live !== undefined) {
    if (event.toSeq > live.seq) {
      problems.push(`session "${id}": durable cursor ${event.toSeq} passed the live log (seq ${live.seq})`)
    }
    const view = live.events
    for (let i = 0; i < event.events.length; i++) {
      if (event.events[i] !== view[event.fromSeq + i]) {
        problems.push(`session "${id}": stored event at seq ${event.fromSeq + i} is not the live session's event`)
        break
      }
    }
  }
  return problems
}

/** Watch commits and claims; log violations at error level. */
export function apply(ctx: Context): void {
  const logger = ctx.logger(name)
  const report = (detail: string): void => logger.error(`${name}: ${detail}`)
  const owners = new Map<string, OwnerTrace>()
  const claims = new Map<string, string>()

  ctx.on('persistence/committed', event => {
    const live = event.source === 'live' ? ctx.sessions.get(event.sessionId as SessionId) : undefined
    for (const problem of commitViolations(event, owners.get(event.ownerId), live)) report(problem)
    owners.set(event.ownerId, { toSeq: event.toSeq, revision: event.revision })
  })
  ctx.on('persistence/claimed', event => {
    const holder = claims.get(event.sessionId)
    if (holder !== undefined && holder !== event.ownerId) {
      report(`session "${event.sessionId}": claimed by ${event.ownerId} while ${holder} holds it`)
    }
    claims.set(event.sessionId, event.ownerId)
  })
  ctx.on('persistence/released', event => {
    if (claims.get(event.sessionId) === event.ownerId) claims.delete(event.sessionId)
    owners.delete(event.ownerId)
  })
}
