/**
 * Another process writing a session: mounts `@logbook/session` and JSONL persistence on `argv[2]`, opens session
 * `argv[3]` for write (taking its lock), appends the events in the JSON file `argv[4]`, closes and exits.
 */
import { readFileSync } from 'node:fs'
import { Context } from '@deepseek-ai/cordis'
import SessionStore from '@logbook/session'
import JsonlSessionPersistence from '@logbook/session-persistence-jsonl'
import * as Compaction from '@logbook/compaction'

const [root, id, file] = process.argv.slice(2) as [string, string, string]
const app = new Context()
await app.plugin(SessionStore)
await app.plugin(Compaction)
await app.plugin(JsonlSessionPersistence, { root, durability: 'fsync' })
const handle = await app.sessionPersistence.open(id, 'write')
await handle.append(JSON.parse(readFileSync(file, 'utf8')))
await handle.close()
process.exit(0)
