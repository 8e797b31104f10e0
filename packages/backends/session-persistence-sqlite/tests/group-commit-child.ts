/**
 * Child process of the group-commit crash test (P-158): `node --conditions=source --import tsx group-commit-child.ts
 * <database path>` with an IPC channel. It writes `GROUP_SESSIONS` live sessions concurrently — one async writer each,
 * appending `groupTurn(i, round)` and awaiting its own flush, so the flushes share group commits — and sends
 * `{ id, seq, commits }` after every flush resolved (`commits`: the store's write transactions so far), until killed.
 */

import { Context } from '@deepseek-ai/cordis'
import SessionStore, { type Session, type SessionId } from '@logbook/session'
import SqliteSessionPersistence from '../src/index.ts'
import { GROUP_SESSIONS, groupTurn } from './group-commit-script.ts'

const path = process.argv[2]
if (path === undefined) throw new Error('usage: group-commit-child.ts <database path>')

const app = new Context()
await app.plugin(SessionStore)
// A long window: only the awaited flushes write, so every stored batch is one flush.
await app.plugin(SqliteSessionPersistence, { path, writeBatchMaxDelayMs: 60_000 })
const sessions = app.get('sessions') as SessionStore
const persistence = app.get('sessionPersistence') as SqliteSessionPersistence

async function writer(session: Session, index: number): Promise<void> {
  const append = session.append.bind(session) as (type: string, data: unknown) => unknown
  for (let round = 1; ; round++) {
    for (const event of groupTurn(index, round)) append(event.type, event.data)
    await sessions.flush(session)
    process.send?.({ id: session.id, seq: session.seq, commits: persistence.commits })
  }
}

const live = Array.from({ length: GROUP_SESSIONS }, (_, i) => sessions.create(`g-${i}` as SessionId, { meta: { cwd: '/home/user/group' } }))
process.send?.({ ready: true })
await Promise.all(live.map((session, i) => writer(session, i)))
