/**
 * A child process for this package's cross-process tests: mounts `@logbook/session` and the JSONL plugin on
 * `process.argv[2]` (durability fsync) and serves `open` / `append` / `close` requests over IPC. The parent may
 * SIGKILL it at any time.
 */
import { Context } from '@deepseek-ai/cordis'
import SessionStore from '@logbook/session'
import type { SessionHandle } from '@logbook/session-persistence'
import JsonlSessionPersistence from '../../src/index.ts'

type Request = { reqId: number } & ({ op: 'open'; id: string } | { op: 'append'; id: string; events: unknown[] } | { op: 'close'; id: string })

const root = process.argv[2] as string
const app = new Context()
await app.plugin(SessionStore)
await app.plugin(JsonlSessionPersistence, { root, durability: 'fsync' })
const handles = new Map<string, SessionHandle>()

async function serve(request: Request): Promise<unknown> {
  switch (request.op) {
    case 'open': {
      const handle = await app.sessionPersistence.open(request.id, 'write')
      handles.set(request.id, handle)
      return { nextSeq: handle.nextSeq }
    }
    case 'append':
      return handles.get(request.id)!.append(request.events as never)
    case 'close':
      await handles.get(request.id)!.close()
      handles.delete(request.id)
      return null
  }
}

process.on('message', (raw) => {
  const request = raw as Request
  serve(request).then(
    (value) => process.send?.({ reqId: request.reqId, ok: true, value }),
    (error: { code?: string; message?: string; details?: unknown }) =>
      process.send?.({ reqId: request.reqId, ok: false, error: { code: error.code, message: String(error.message), details: error.details } }),
  )
})
process.send?.({ ready: process.pid })
