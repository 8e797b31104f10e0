import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { defaultTokenEstimator } from '@logbook/llm'
import { deriveEventMessage, foldSurface } from '@logbook/session'
import Jsonl from '@logbook/session-persistence-jsonl'
import { describe, expect, it } from 'vitest'
import { boot, ofType, pairingProblems, tool, windowOf } from './helpers.ts'

const TURNS = 300
const WINDOW = 3000

describe('a long session under automatic compaction', () => {
  it(`${TURNS} scripted turns with tool results stay under the context budget, never orphan a tool call or result, and replay identically from disk`, async () => {
    const root = await mkdtemp(join(tmpdir(), 'compaction-long-'))
    try {
      const env = await boot({
        script: [
          { match: { purpose: 'compaction' }, text: 'Goal: keep reading. Work done: read the files so far.', repeat: true },
          { match: { afterTool: 'read' }, text: 'done', repeat: true },
          { toolCalls: [{ name: 'read', arguments: { path: 'a.txt' } }], repeat: true },
        ],
        compaction: windowOf(WINDOW),
        tools: [tool('read', 'file contents '.repeat(30))],
        persistence: { plugin: Jsonl, config: { root, durability: 'none' } },
      })
      const problems: string[] = []
      const sizes: number[] = []
      env.app.on('llm/before-stream', request => {
        if (request.purpose !== 'turn') return
        let size = defaultTokenEstimator.text(request.system ?? '') + defaultTokenEstimator.tools(request.tools ?? [])
        for (const message of request.messages) size += defaultTokenEstimator.message(message)
        sizes.push(size)
        problems.push(...pairingProblems(request.messages))
      })
      const agent = await env.app.agents.create({ sessionId: 'long', options: { provider: 'scripted', model: 'm1', system: 'You read files.' } })
      for (let turn = 1; turn <= TURNS; turn++) {
        const result = await agent.send(`turn ${turn}: read a.txt again`)
        if (result.reason.kind !== 'completed') throw new Error(`turn ${turn} ended ${JSON.stringify(result.reason)}`)
      }
      const s = agent.session
      const compactions = ofType(s, 'compaction/end')
      expect(compactions.length).toBeGreaterThan(10)
      expect(compactions.every(end => !('error' in end.data))).toBe(true)
      expect(sizes).toHaveLength(2 * TURNS)
      expect(Math.max(...sizes)).toBeLessThanOrEqual(WINDOW)
      expect(problems).toEqual([])
      expect(pairingProblems(s.deriveMessages())).toEqual([])
      await agent.dispose()

      // Replay from disk: the stored log equals the live one and folds to the same surface and messages.
      const stored = await env.app.sessionPersistence.readFrom('long', 0)
      expect(stored).toHaveLength(s.seq)
      expect(JSON.parse(JSON.stringify(stored))).toEqual(JSON.parse(JSON.stringify([...s.events])))
      const folded = foldSurface(stored)
      expect(folded.nodes).toEqual([...s.surface.nodes])
      expect(folded.replaceGeneration).toBe(s.surface.replaceGeneration)
      expect(JSON.parse(JSON.stringify(folded.nodes.map(seq => deriveEventMessage(stored[seq]!)).filter(m => m !== null))))
        .toEqual(JSON.parse(JSON.stringify(s.deriveMessages())))
    } finally {
      await rm(root, { recursive: true, force: true })
    }
  })
})
