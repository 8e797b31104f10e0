/**
 * `ctx.agents.resume` (spec 03 §5.1): spec 02 §4.3 step by step — write ownership first, cold read, closers of an
 * interrupted turn appended through the same handle, the session rebuilt from the balanced log, `handOff`, publish.
 */

import type { Context } from '@deepseek-ai/cordis'
import { openTurnClosers, SessionError, type Session, type SessionEvent, type SessionId } from '@logbook/session'
import { sessionRelations } from '@logbook/session/invariant'
import {
  PERSISTENCE_NOT_CONFIGURED_MESSAGE, SessionPersistenceCorruptionError, type SessionHandle, type SessionPersistence,
} from '@logbook/session-persistence'
import type { Agent } from './agent.ts'
import { AgentError } from './errors.ts'
import { createHost, publishOn } from './host.ts'
import { bindAgent } from './lifecycle.ts'
import { checkPartialOptions, resolveOptions } from './options.ts'
import type { LoopRuntime } from './runtime.ts'
import type { ResumeAgentInput } from './types.ts'
import { messageOf } from '@logbook/session'
import { newestHeader } from './log-scan.ts'

/** One signal for the caller's signal, the owner fiber's unload and the loop's teardown (02 §4.3 step 1). */
function fuseSignal(signal: AbortSignal | undefined, owner: Context, runtime: LoopRuntime): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController()
  const abort = (reason: unknown): void => {
    if (!controller.signal.aborted) controller.abort(reason)
  }
  const onAbort = (): void => abort(signal!.reason)
  if (signal?.aborted) abort(signal.reason)
  else signal?.addEventListener('abort', onAbort, { once: true })
  let active = true
  const release = owner.effect(() => () => {
    if (active) abort(new DOMException('the owner of this resume was disposed', 'AbortError'))
  }, 'agents.resume()')
  const factory = { dispose: async () => abort(new DOMException('the agent loop was disposed', 'AbortError')) }
  runtime.agents.add(factory)
  return {
    signal: controller.signal,
    dispose: () => {
      active = false
      signal?.removeEventListener('abort', onAbort)
      void release()
      runtime.agents.delete(factory)
    },
  }
}

/**
 * `open(id, 'write')` raced against `signal` (02 §4.3 step 2): an abort rejects at once with its reason, even while
 * the backend never answers, and a handle that arrives after that is closed, releasing its claim and lock.
 */
function openRacing(persistence: SessionPersistence, id: string, signal: AbortSignal, warn: (text: string) => void): Promise<SessionHandle> {
  const opening = persistence.open(id, 'write', { signal })
  return new Promise<SessionHandle>((resolve, reject) => {
    let abandoned = false
    const onAbort = (): void => {
      abandoned = true
      reject(signal.reason)
    }
    signal.addEventListener('abort', onAbort, { once: true })
    opening.then(
      handle => {
        signal.removeEventListener('abort', onAbort)
        if (!abandoned) return resolve(handle)
        handle.close().catch((error: unknown) => warn(`resume of "${id}": closing a handle that arrived after the abort failed: ${messageOf(error)}`))
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort)
        if (!abandoned) reject(error)
      },
    )
  })
}

/** A stored log core or the 01 §9 relations refuse, reported as corruption of that log naming the record. */
function corrupt(id: string, detail: string, seq: number | undefined, cause?: unknown): SessionPersistenceCorruptionError {
  return new SessionPersistenceCorruptionError(`session "${id}": the stored log is not a valid session: ${detail}`, {
    sessionId: id, detail, ...(seq === undefined ? {} : { seq }), ...(cause === undefined ? {} : { cause }),
  })
}

/**
 * The session `seed` (the stored log plus its closers) builds, or the corruption it is: core's validation (payloads,
 * surface, seeded contracts) and the turn, step and tool relations of 01 §9 — damaged relations in a stored log are
 * corruption of that log, not an invariant veto at publication.
 * @throws SessionPersistenceCorruptionError naming the record; SessionError `SESSION_ALREADY_EXISTS` unchanged.
 */
function validSession(runtime: LoopRuntime, id: SessionId, handle: SessionHandle, seed: readonly SessionEvent[]): Session {
  let session: Session
  try {
    session = runtime.sessions.prepare(id, {
      seed, meta: handle.header, inheritedEventCount: handle.inheritedEventCount, eventState: handle.eventState,
    })
  } catch (error) {
    if (error instanceof SessionError && error.code !== 'SESSION_ALREADY_EXISTS') throw corrupt(id, error.message, error.index, error)
    throw error
  }
  const { start, violation, advance } = sessionRelations
  const trace = start()
  for (const event of seed) {
    const detail = violation(trace, event)
    if (detail !== undefined) throw corrupt(id, `event at seq ${event.seq}: ${detail}`, event.seq)
    advance(trace, event)
  }
  return session
}

/**
 * Resume the stored session `input.resumeSessionId` with an agent on it.
 * @throws AgentError `PERSISTENCE_NOT_CONFIGURED` (02 §4.3's message), `INVALID_OPTIONS`; persistence errors of
 * `open(id, 'write')` (`SESSION_LOCKED`, `SESSION_NOT_FOUND`, …); `SESSION_CORRUPT` when core or the 01 §9
 * relations reject the log (nothing appended);
 * the signal's reason when aborted (the handle is closed and the id stays resumable).
 */
export async function resumeAgent(runtime: LoopRuntime, owner: Context, input: ResumeAgentInput): Promise<Agent> {
  const persistence = runtime.persistence()
  if (persistence === undefined) throw new AgentError('PERSISTENCE_NOT_CONFIGURED', PERSISTENCE_NOT_CONFIGURED_MESSAGE)
  if (input.options !== undefined) checkPartialOptions(input.options)
  const id = input.resumeSessionId as SessionId
  const fused = fuseSignal(input.signal, owner, runtime)
  const { signal } = fused
  let handle: SessionHandle | undefined
  try {
    if (signal.aborted) throw signal.reason
    handle = await openRacing(persistence, id, signal, text => runtime.warn(text))
    if (signal.aborted) throw signal.reason
    const events = await handle.read(0, { signal })
    const closers = openTurnClosers(events, { kind: 'interrupted' })
    // The whole log is validated, and the options resolved, before anything is appended: a refused resume leaves
    // the stored bytes as they were.
    // The read's view keeps packed chunk runs packed into the session (01 §5.2); a spread would build every member.
    const session = validSession(runtime, id, handle, closers.length === 0 ? events : [...events, ...closers])
    const options = resolveOptions(input.options, newestHeader(events))
    if (closers.length > 0) await handle.append(closers, { signal })
    if (signal.aborted) throw signal.reason
    const host = await createHost(runtime.ctx)
    try {
      handle.handOff()
      publishOn(host, session)
    } catch (error) {
      await host.dispose()
      throw error
    }
    handle = undefined // adopted by the session's writer
    return await bindAgent(runtime, owner, session, host, options)
  } catch (error) {
    await handle?.close()
    throw error
  } finally {
    fused.dispose()
  }
}
