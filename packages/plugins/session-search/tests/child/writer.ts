/**
 * A separate process writing a session into a JSONL store, as another `logbook` process would:
 * `writer.ts <root> create <id> <text> [--search]` stores a new session of one turn (with `--search` the process also
 * runs the search plugin on the store's index, indexing what it commits); `writer.ts <root> append <id> <text>`
 * appends one more turn through a write handle. It prints `done` and exits.
 */
import { Context } from '@deepseek-ai/cordis'
import SessionStore, { MessageId, SessionId } from '@logbook/session'
import JsonlSessionPersistence from '@logbook/session-persistence-jsonl'
import SessionSearch from '../../src/index.ts'

const [root, mode, id, text, flag] = process.argv.slice(2) as [string, string, string, string, string | undefined]
const app = new Context()
await app.plugin(SessionStore)
const persistence = app.plugin(JsonlSessionPersistence, { root, durability: 'fsync' } as never)
await persistence
const search = flag === '--search' ? app.plugin(SessionSearch, { indexDelayMs: 0 } as never) : undefined
await search

const user = (seq: number) => ({
  type: 'user/message', seq, time: Date.now(), surfaceOp: 'append',
  data: { id: MessageId(`user-${seq}`), role: 'user', source: { kind: 'user' }, content: [{ type: 'text', text }] },
})

if (mode === 'create') {
  let session
  const fiber = app.plugin({ name: 'writer', inject: ['sessions'], apply: ctx => { session = ctx.sessions.create(SessionId(id)) } })
  await fiber
  const s = session!
  s.append('turn/start', { turn: 1 })
  s.append('user/message', user(s.seq).data as never, { surfaceOp: 'append' })
  s.append('turn/end', { turn: 1, reason: { kind: 'completed' } })
  await app.sessions.flush(s)
  await fiber.dispose()
} else {
  const handle = await app.sessionPersistence.open(id, 'write')
  const events = await handle.read(0)
  const turns = events.filter(event => event.type === 'turn/start').length
  const next = handle.nextSeq
  await handle.append([
    { type: 'turn/start', seq: next, time: Date.now(), data: { turn: turns + 1 } },
    user(next + 1),
    { type: 'turn/end', seq: next + 2, time: Date.now(), data: { turn: turns + 1, reason: { kind: 'completed' } } },
  ] as never)
  await handle.close()
}
await search?.dispose()
await persistence.dispose()
process.stdout.write('done\n')
