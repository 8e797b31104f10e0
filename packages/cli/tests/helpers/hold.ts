/**
 * A separate process holding write ownership of one stored session: `hold.ts <root> <id>` opens it for write in the
 * JSONL store at `<root>`, prints `held`, and keeps the lock until it is killed.
 */
import { Context } from '@deepseek-ai/cordis'
import SessionStore from '@logbook/session'
import JsonlSessionPersistence from '@logbook/session-persistence-jsonl'

const [root, id] = process.argv.slice(2) as [string, string]
const app = new Context()
await app.plugin(SessionStore)
await app.plugin(JsonlSessionPersistence, { root } as never)
await app.sessionPersistence.open(id, 'write')
process.stdout.write('held\n')
setInterval(() => {}, 60_000)
