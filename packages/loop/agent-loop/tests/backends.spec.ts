import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import MemorySessionPersistence from '@logbook/session-persistence'
import JsonlSessionPersistence from '@logbook/session-persistence-jsonl'
import SqliteSessionPersistence from '@logbook/session-persistence-sqlite'
import { boot, OPTIONS, shape, tool } from './helpers.ts'

const dirs: string[] = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'logbook-loop-backend-'))
  dirs.push(dir)
  return dir
}

const backends: [string, () => { plugin: unknown; config: unknown }][] = [
  ['memory', () => ({ plugin: MemorySessionPersistence, config: { storeName: 'e2e' } })],
  ['jsonl', () => ({ plugin: JsonlSessionPersistence, config: { root: tempDir(), durability: 'none' } })],
  ['sqlite', () => ({ plugin: SqliteSessionPersistence, config: { path: join(tempDir(), 'logbook.sqlite') } })],
]

describe.each(backends)('a turn end to end on %s', (_name, persistence) => {
  it('stores exactly the live log; a resume in a new app continues it', async () => {
    const backend = persistence()
    const script = [
      { toolCalls: [{ id: 'c1', name: 'read', arguments: {} }], match: { lastUserIncludes: 'first' } },
      { text: 'done', repeat: true },
    ]
    const first = await boot({ script, tools: [tool('read')], persistence: backend })
    const agent = await first.app.agents.create({ sessionId: 'e2e', options: { ...OPTIONS, system: 'sys' } })
    expect((await agent.send('first prompt')).reason).toEqual({ kind: 'completed' })
    await agent.dispose()
    const stored = await first.app.sessionPersistence.readFrom('e2e', 0)
    expect(JSON.stringify(stored)).toBe(JSON.stringify(agent.session.events))
    await first.persistence!.dispose()

    const second = await boot({ script, tools: [tool('read')], persistence: backend })
    const resumed = await second.app.agents.resume({ resumeSessionId: 'e2e' })
    expect((await resumed.send('second prompt')).turn).toBe(2)
    await resumed.dispose()
    const all = await second.app.sessionPersistence.readFrom('e2e', 0)
    expect(JSON.stringify(all)).toBe(JSON.stringify(resumed.session.events))
    expect(shape(all, stored.length)).toEqual([
      'session/end-seed', 'turn/start', 'user/message', 'step/start', 'request/header', 'chunks', 'assistant/message', 'step/end', 'turn/end',
    ])
    await second.persistence!.dispose()
  })
})
