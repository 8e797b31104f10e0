/**
 * A child process for the host-level tests: mounts `@logbook/session` and the PostgreSQL backend with the config
 * in `LOGBOOK_PG_WORKER_CONFIG`, then serves requests over IPC. With `LOGBOOK_PG_WORKER_HOST` set it reports that
 * host name (so the parent sees a holder on another machine). Killed with SIGKILL or stopped with SIGSTOP by the
 * tests; it exits when the IPC channel closes.
 */
import os from 'node:os'
import { syncBuiltinESMExports } from 'node:module'

const fakeHost = process.env.LOGBOOK_PG_WORKER_HOST
if (fakeHost !== undefined && fakeHost !== '') {
  os.hostname = () => fakeHost
  syncBuiltinESMExports()
}

const { Context } = await import('@deepseek-ai/cordis')
const { default: SessionStore } = await import('@logbook/session')
const { default: PostgresSessionPersistence } = await import('../src/index.ts')
const { appendLiveTurn, turn } = await import('./events.ts')
type Handle = Awaited<ReturnType<InstanceType<typeof PostgresSessionPersistence>['open']>>

/** A request from the parent. */
export type HostRequest =
  | { readonly op: 'open'; readonly id: string }
  | { readonly op: 'append-turn'; readonly id: string; readonly turn: number }
  | { readonly op: 'close'; readonly id: string }
  | { readonly op: 'write-live'; readonly ids: readonly string[]; readonly turns: number }

const app = new Context()
await app.plugin(SessionStore)
await app.plugin(PostgresSessionPersistence, JSON.parse(process.env.LOGBOOK_PG_WORKER_CONFIG ?? '{}'))
const persistence = app.get('sessionPersistence') as InstanceType<typeof PostgresSessionPersistence>
const sessions = app.get('sessions') as import('@logbook/session').default
const handles = new Map<string, Handle>()

async function serve(request: HostRequest): Promise<unknown> {
  switch (request.op) {
    case 'open': {
      const handle = await persistence.open(request.id, 'write')
      handles.set(request.id, handle)
      return { nextSeq: handle.nextSeq }
    }
    case 'append-turn': {
      const handle = handles.get(request.id)!
      return handle.append(turn(handle.nextSeq, request.turn))
    }
    case 'close': {
      await handles.get(request.id)?.close()
      handles.delete(request.id)
      return null
    }
    case 'write-live': {
      const live = request.ids.map(id => sessions.create(id as never, { meta: { cwd: '/home/user/hosts' } }))
      await Promise.all(live.map(async (session) => {
        for (let t = 1; t <= request.turns; t++) {
          appendLiveTurn(session, t)
          await sessions.flush(session)
        }
      }))
      return live.map(session => session.seq)
    }
  }
}

process.on('message', (message: { reqId: number; request: HostRequest }) => {
  serve(message.request).then(
    value => process.send?.({ reqId: message.reqId, ok: true, value }),
    (error: { code?: string; message?: string; details?: unknown }) =>
      process.send?.({ reqId: message.reqId, ok: false, code: error.code, message: error.message, details: JSON.parse(JSON.stringify(error.details ?? null)) }),
  )
})
process.on('disconnect', () => process.exit(0))
process.send?.({ ready: true, pid: process.pid })
