/**
 * The fiber that owns an agent's session. Its publication must outlive whoever created the agent until the agent
 * has closed its turn and flushed: Cordis disposes a fiber's effects concurrently, so a session published on the
 * caller's fiber could be detached before the closing `turn/end` is written. Each agent therefore publishes its
 * session on a fiber of its own, which only the agent's ordered `dispose()` tears down.
 */

import { Context, type Fiber } from '@deepseek-ai/cordis'
import type { Session } from '@logbook/session'

/** The fiber hosting one agent's session. */
export interface SessionHost {
  readonly ctx: Context
  dispose(): Promise<void>
}

/**
 * Start a host fiber under the application root (so unloading the caller or the loop plugin does not tear it down
 * concurrently); when the root cannot see `sessions` (an isolated scope), under `parent` instead.
 */
export async function createHost(parent: Context): Promise<SessionHost> {
  const start = async (owner: Context): Promise<SessionHost | undefined> => {
    let hostCtx: Context | undefined
    const fiber: Fiber = owner.plugin({
      name: 'logbook-agent-session',
      inject: ['sessions'],
      apply: (ctx: Context) => {
        hostCtx = ctx
      },
    })
    await fiber
    if (hostCtx === undefined) {
      await fiber.dispose()
      return undefined
    }
    return { ctx: hostCtx, dispose: () => fiber.dispose() }
  }
  const sameStore = parent[Context.isolate]['sessions'] === parent.root[Context.isolate]['sessions']
  const host = (sameStore ? await start(parent.root) : undefined) ?? (await start(parent))
  if (host === undefined) throw new Error('cannot host an agent session: the sessions service is not available')
  return host
}

/**
 * Enter and announce `session` in one effect on the host fiber (01 §6.5 shape): a throwing `session/created`
 * listener rolls the entry back; disposing the host detaches the session.
 * @throws what `sessions.enter` / `announce` throw.
 */
export function publishOn(host: SessionHost, session: Session): void {
  const sessions = host.ctx.sessions
  host.ctx.effect(function* () {
    yield sessions.enter(session)
    sessions.announce(session)
  }, 'agents.publish()')
}
