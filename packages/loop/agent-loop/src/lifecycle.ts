/**
 * Creating agents (spec 03 §5.1): `create` on a new id, `fork` of a live or stored session, and the binding of an
 * agent to its owner fiber. `resume` lives in `resume.ts`.
 */

import { randomUUID } from 'node:crypto'
import type { Context } from '@deepseek-ai/cordis'
import {
  forkSeed, isValidSessionId, SessionError, SessionForkError, type Session, type SessionEvent, type SessionHeader, type SessionId,
} from '@logbook/session'
import { isSessionPersistenceError, type SessionPersistence } from '@logbook/session-persistence'
import { Agent } from './agent.ts'
import { AgentError } from './errors.ts'
import { createHost, publishOn, type SessionHost } from './host.ts'
import { checkPartialOptions, resolveOptions, validateOptions } from './options.ts'
import type { LoopRuntime } from './runtime.ts'
import type { AgentOptions, CreateAgentInput, ForkAgentInput } from './types.ts'
import { newestHeader } from './log-scan.ts'

function invalidId(id: unknown): SessionError {
  return new SessionError('INVALID_SESSION_ID', `invalid session id "${String(id)}"`)
}

/** True iff `id` has a stored log (a corrupt or unsupported one counts). @throws other persistence failures. */
export async function storedExists(persistence: SessionPersistence, id: string): Promise<boolean> {
  try {
    await persistence.readFrom(id, Number.MAX_SAFE_INTEGER)
    return true
  } catch (error) {
    if (isSessionPersistenceError(error, 'SESSION_NOT_FOUND')) return false
    if (isSessionPersistenceError(error, 'SESSION_CORRUPT') || isSessionPersistenceError(error, 'SESSION_FORMAT_UNSUPPORTED')) return true
    throw error
  }
}

/** True iff `id` is live in this process or stored (an invalid id is neither). */
async function exists(runtime: LoopRuntime, id: string): Promise<boolean> {
  if (!isValidSessionId(id)) return false
  if (runtime.sessions.get(id) !== undefined) return true
  const persistence = runtime.persistence()
  return persistence !== undefined && (await storedExists(persistence, id))
}

/**
 * Wrap a published session in an agent owned by `owner`'s fiber (its unload disposes the agent) and by the loop
 * (factory teardown disposes it too); the agent follows its session from here on, `agent/created` announces it, and
 * input its log still holds queued starts.
 */
export async function bindAgent(
  runtime: LoopRuntime, owner: Context, session: Session, host: SessionHost, options: AgentOptions,
): Promise<Agent> {
  const agent = new Agent({ runtime, session, host, options })
  runtime.agents.add(agent)
  const unfollow = runtime.follow(session, agent)
  try {
    const release = owner.effect(() => () => agent.dispose(), `agents.agent(${JSON.stringify(session.id)})`)
    agent.bindOwner(() => {
      unfollow()
      // After dispose() the effect hands back the same settled disposal: its caller has the failure, so this copy of
      // it is observed here rather than left unhandled.
      void Promise.resolve(release()).catch(() => undefined)
    })
  } catch (error) {
    await agent.dispose()
    unfollow()
    throw error
  }
  runtime.emitContained('agent/created', agent)
  agent.start()
  return agent
}

/**
 * `ctx.agents.create`: a new session (optionally seeded) with an agent on it.
 * @throws AgentError `INVALID_OPTIONS`, `SESSION_ALREADY_EXISTS` (live or stored id); SessionError from the store.
 */
export async function createAgent(runtime: LoopRuntime, owner: Context, input: CreateAgentInput): Promise<Agent> {
  const options = validateOptions(input.options)
  const id = input.sessionId ?? randomUUID()
  if (!isValidSessionId(id)) throw invalidId(id)
  if (await exists(runtime, id)) throw new AgentError('SESSION_ALREADY_EXISTS', `session "${id}" already exists`)
  const session = runtime.sessions.prepare(id, {
    ...(input.seed === undefined ? {} : { seed: input.seed }),
    ...(input.meta === undefined ? {} : { meta: input.meta }),
    ...(input.inheritedEventCount === undefined ? {} : { inheritedEventCount: input.inheritedEventCount }),
  })
  const host = await createHost(runtime.ctx)
  try {
    publishOn(host, session)
  } catch (error) {
    await host.dispose()
    throw error
  }
  return bindAgent(runtime, owner, session, host, options)
}

/** A stored-only session read in read mode, untouched; `undefined` when not stored. */
async function readStored(persistence: SessionPersistence, id: string): Promise<{ header: SessionHeader; events: readonly SessionEvent[] } | undefined> {
  let handle
  try {
    handle = await persistence.open(id, 'read')
  } catch (error) {
    if (isSessionPersistenceError(error, 'SESSION_NOT_FOUND')) return undefined
    throw error
  }
  try {
    return { header: handle.header, events: await handle.read(0) }
  } finally {
    await handle.close()
  }
}

/** The smallest `<source>-fork-<n>` (n ≥ 1) that is neither live nor stored. */
async function freeChildId(runtime: LoopRuntime, source: string): Promise<string> {
  for (let n = 1; ; n++) {
    const candidate = `${source}-fork-${n}`
    if (!(await exists(runtime, candidate))) return candidate
  }
}

/**
 * `ctx.agents.fork`: 01 §7's checks in its order, where "exists" and "found" also count stored logs; a live source
 * forks through `ctx.sessions.fork`, a stored-only one is read untouched and seeded with `forkSeed`.
 * @throws SessionError `INVALID_SESSION_ID`; SessionForkError `SESSION_ALREADY_EXISTS`, `SESSION_NOT_FOUND`,
 * `INVALID_BOUNDARY`; AgentError `INVALID_OPTIONS`.
 */
export async function forkAgent(runtime: LoopRuntime, owner: Context, input: ForkAgentInput): Promise<Agent> {
  if (input.options !== undefined) checkPartialOptions(input.options)
  const { sourceSessionId: sourceId, childSessionId: given } = input
  if (given !== undefined && !isValidSessionId(given)) throw invalidId(given)
  if (given !== undefined && (await exists(runtime, given))) {
    throw new SessionForkError('SESSION_ALREADY_EXISTS', `session "${given}" already exists`)
  }
  // An id that cannot name a session is not found (01 §7 step 2), never a persistence argument error.
  const valid = isValidSessionId(sourceId)
  const live = valid ? runtime.sessions.get(sourceId) : undefined
  const persistence = runtime.persistence()
  const source = live ?? (!valid || persistence === undefined ? undefined : await readStored(persistence, sourceId))
  if (source === undefined) throw new SessionForkError('SESSION_NOT_FOUND', `session "${sourceId}" not found`)
  const events = source.events
  const seed = forkSeed(source.header, events, input.at)
  const boundary = seed.inheritedEventCount - 1
  const options = resolveOptions(input.options, newestHeader(events, boundary))
  const childId = (given ?? (await freeChildId(runtime, sourceId))) as SessionId
  const host = await createHost(runtime.ctx)
  let session: Session
  try {
    if (live !== undefined) {
      session = host.ctx.sessions.fork(live, boundary < 0 ? undefined : boundary, childId)
    } else {
      session = host.ctx.sessions.prepare(childId, { seed: seed.seed, meta: seed.meta, inheritedEventCount: seed.inheritedEventCount })
      publishOn(host, session)
    }
  } catch (error) {
    await host.dispose()
    throw error
  }
  return bindAgent(runtime, owner, session, host, options)
}
