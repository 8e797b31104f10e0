/**
 * A child process for the crash test: an agent on a JSONL store whose second turn triggers pressure compaction.
 * Once `compaction/start` is durable (flushed when the summary request begins) it reports `{ ready, startSeq }`
 * over IPC; the summariser then hangs until the parent kills the process.
 */

import { Context } from '@deepseek-ai/cordis'
import Agents from '@logbook/agent-loop'
import * as LoopInvariant from '@logbook/agent-loop/invariant'
import * as CompactionInvariant from '@logbook/compaction/invariant'
import Llm from '@logbook/llm'
import SessionStore, { SessionId } from '@logbook/session'
import * as SessionInvariant from '@logbook/session/invariant'
import Jsonl from '@logbook/session-persistence-jsonl'
import * as Scripted from '@logbook/llm-scripted'
import Tools from '@logbook/tools'
import BasicCompaction from '../../src/index.ts'

const root = process.argv[2]!
const app = new Context()
await app.plugin(SessionStore)
await app.plugin(SessionInvariant)
await app.plugin(LoopInvariant)
await app.plugin(CompactionInvariant)
await app.plugin(Jsonl, { root, durability: 'fsync' })
await app.plugin(Llm)
await app.plugin(Scripted, {
  script: [
    { match: { purpose: 'compaction' }, text: 'Goal: …', hang: true },
    { match: { afterTool: 'read' }, text: 'noted' },
    { match: { lastUserIncludes: 'start' }, toolCalls: [{ name: 'read', arguments: { path: 'notes.txt' } }] },
    { text: 'ok', repeat: true },
  ],
})
await app.plugin(Tools)
app.tools.register({ name: 'read', description: 'read a file', parameters: { type: 'object' }, execute: () => 'n'.repeat(2000) })
await app.plugin(Agents, {})
await app.plugin(BasicCompaction, { contextWindows: [{ provider: 'scripted', model: 'm1', contextWindow: 1000 }] })

app.on('llm/before-stream', async (request) => {
  if (request.purpose !== 'compaction') return
  const session = app.sessions.get(SessionId('crash'))!
  await app.sessions.flush(session)
  const start = session.events.findLast(event => event.type === 'compaction/start')!
  process.send!({ ready: true, startSeq: start.seq })
})

const agent = await app.agents.create({ sessionId: 'crash', options: { provider: 'scripted', model: 'm1' } })
await agent.send('start reading the notes')
// The second prompt puts the session above 80 % of its 1000-token window: the pre-step compaction starts and hangs.
await agent.send('lorem '.repeat(250))
process.stderr.write('compacting-agent: the second turn ended without a compaction\n')
process.exit(2)
