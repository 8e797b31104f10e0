/**
 * Storing a new session built from a seed: create it on a short-lived fiber, flush it, then detach it, which
 * releases its write ownership.
 */

import type { Context } from '@deepseek-ai/cordis'
import type { CreateSessionOptions, Session, SessionId } from '@logbook/session'
import type { App } from '../app/app.ts'

/**
 * Create `id` from `options` as a live session, store it durably, and detach it.
 * @throws what `sessions.create` throws (seed validation, `SESSION_ALREADY_EXISTS`), and the flush's persistence
 * error (`SESSION_ALREADY_EXISTS`, `SESSION_LOCKED`, `STORE_IO`).
 */
export async function storeNewSession(app: App, id: string, options: CreateSessionOptions): Promise<Session> {
  let session: Session | undefined
  const fiber = app.ctx.plugin({
    name: 'logbook-cli-session',
    inject: ['sessions'],
    apply: (ctx: Context) => {
      session = ctx.sessions.create(id as SessionId, options)
    },
  })
  try {
    await fiber
    await app.sessions.flush(session!)
    return session!
  } finally {
    await fiber.dispose()
  }
}
