import { fork } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { entryState } from '@logbook/compaction'
import { foldSurface } from '@logbook/session'
import Jsonl from '@logbook/session-persistence-jsonl'
import { afterEach, describe, expect, it } from 'vitest'
import { boot, pairingProblems, shape } from './helpers.ts'

const childPath = fileURLToPath(new URL('./child/compacting-agent.ts', import.meta.url))
const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href
const roots: string[] = []

afterEach(async () => {
  for (const root of roots.splice(0)) await rm(root, { recursive: true, force: true })
})

/** Run the child until its compaction/start is durable, then SIGKILL it; resolves with that start's seq. */
function crashDuringCompaction(root: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = fork(childPath, [root], { execArgv: ['--conditions=source', '--import', tsx], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] })
    let startSeq: number | undefined
    child.on('message', (message) => {
      startSeq = (message as { startSeq: number }).startSeq
      child.kill('SIGKILL')
    })
    child.on('exit', (code, signal) => {
      if (signal === 'SIGKILL' && startSeq !== undefined) resolve(startSeq)
      else reject(new Error(`child exited (${code ?? signal}) before compaction started`))
    })
  })
}

describe('a crash inside a compaction bracket', () => {
  it('L-031 a process killed after a durable compaction/start → resume appends turn/end {interrupted} and an end-seed; compactNow succeeds', async () => {
    const root = await mkdtemp(join(tmpdir(), 'compaction-crash-'))
    roots.push(root)
    const startSeq = await crashDuringCompaction(root)

    const env = await boot({
      script: [{ match: { purpose: 'compaction' }, text: 'Goal: read the notes. Work done: read notes.txt.' }, { text: 'ok', repeat: true }],
      persistence: { plugin: Jsonl, config: { root, durability: 'none' } },
    })
    const stored = await env.app.sessionPersistence.readFrom('crash', 0)
    expect(stored.at(-1)).toMatchObject({ seq: startSeq, type: 'compaction/start', data: { turn: 2, trigger: 'pressure' } })

    const agent = await env.app.agents.resume({ resumeSessionId: 'crash' })
    const s = agent.session
    expect(shape(s, startSeq)).toEqual(['compaction/start', 'turn/end', 'session/end-seed'])
    expect(s.events[startSeq + 1]!.data).toEqual({ turn: 2, reason: { kind: 'interrupted' } })
    expect(entryState(s)).toMatchObject({ unmatchedStart: { seq: startSeq }, lock: null, openTurn: null })

    const result = await env.compaction.compactNow(agent)
    expect(result).not.toBeNull()
    expect(s.events[result!.startSeq]!.data).toMatchObject({ turn: null, trigger: 'manual' })
    expect(shape(s, startSeq)).toEqual([
      'compaction/start', 'turn/end', 'session/end-seed', 'compaction/start', 'compaction/summary', 'user/message', 'compaction/end',
    ])
    // The surface is valid (a fold of the log reproduces it) and tool-paired.
    expect(foldSurface(s.events).nodes).toEqual([...s.surface.nodes])
    expect(env.compaction.cutPoints(s).at(-1)).toBe(true)
    expect(pairingProblems(s.deriveMessages())).toEqual([])
    expect((await agent.send('carry on')).reason).toEqual({ kind: 'completed' })
    await agent.dispose()
    const reread = await env.app.sessionPersistence.readFrom('crash', 0)
    expect(JSON.parse(JSON.stringify(reread))).toEqual(JSON.parse(JSON.stringify([...s.events])))
  })
})
