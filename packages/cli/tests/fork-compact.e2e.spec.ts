import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { DEMO_MODEL, DEMO_PROVIDER } from '../src/app/embedded.ts'
import { DEMO_PROMPTS } from '../src/demo/script.ts'
import { lines, logbook } from './helpers/cli.ts'
import { fingerprint, sessionFile } from './helpers/files.ts'
import { storeEvents, tempDir, turnEvents, withStore } from './helpers/store.ts'

const T0 = Date.UTC(2026, 1, 1)

describe('logbook fork', () => {
  const cwd = tempDir()
  const root = join(cwd, '.logbook')

  beforeAll(async () => {
    await withStore(root, async (app) => {
      await storeEvents(app, 'p', [...turnEvents(0, 1, T0, 'first'), ...turnEvents(6, 2, T0 + 1000, 'second', { open: true })])
      await storeEvents(app, 'taken', turnEvents(0, 1, T0, 'other'))
    })
  })

  it('L-113 fork --at past the end is INVALID_BOUNDARY (exit 2); the parent bytes are unchanged', async () => {
    const before = fingerprint(sessionFile(root, 'p'))
    const run = await logbook(['fork', 'p', '--at', '11'], { cwd })
    expect(run.code).toBe(2)
    expect(lines(run.stderr)).toEqual(['logbook: fork boundary 11 is beyond the last seq 10 of session "p" [INVALID_BOUNDARY]'])
    expect(fingerprint(sessionFile(root, 'p'))).toEqual(before)
  })

  it('L-113 an existing child is SESSION_ALREADY_EXISTS (exit 4), even with a bad boundary', async () => {
    const before = fingerprint(sessionFile(root, 'p'))
    const run = await logbook(['fork', 'p', '--at', '99', '--as', 'taken'], { cwd })
    expect(run.code).toBe(4)
    expect(lines(run.stderr)).toEqual(['logbook: session "taken" already exists [SESSION_ALREADY_EXISTS]'])
    expect(fingerprint(sessionFile(root, 'p'))).toEqual(before)
    const missing = await logbook(['fork', 'ghost'], { cwd })
    expect(missing.code).toBe(3)
    expect(lines(missing.stderr)).toEqual(['logbook: session "ghost" not found [SESSION_NOT_FOUND]'])
  })

  it('L-113 fork checks in 01 §7\'s order: a taken child, then a missing source, then the boundary', async () => {
    const taken = await logbook(['fork', 'p', '--at', '-1', '--as', 'taken'], { cwd })
    expect(taken.code).toBe(4)
    expect(lines(taken.stderr)).toEqual(['logbook: session "taken" already exists [SESSION_ALREADY_EXISTS]'])
    const ghost = await logbook(['fork', 'ghost', '--at', 'soon'], { cwd })
    expect(ghost.code).toBe(3)
    expect(lines(ghost.stderr)).toEqual(['logbook: session "ghost" not found [SESSION_NOT_FOUND]'])
    for (const at of ['-1', 'soon', '2.5']) {
      const run = await logbook(['fork', 'p', '--at', at], { cwd })
      expect(run.code).toBe(2)
      expect(lines(run.stderr)).toEqual([`logbook: fork boundary must be a non-negative safe integer, got ${at} [INVALID_BOUNDARY]`])
    }
    const badChild = await logbook(['fork', 'ghost', '--as', 'a b'], { cwd })
    expect(badChild.code).toBe(2)
    expect(lines(badChild.stderr)).toEqual(['logbook: invalid session id "a b" [INVALID_SESSION_ID]'])
  })

  it('L-113 fork inside the open turn prints the child id; the child is closed with forked closers; the parent is untouched', async () => {
    const before = fingerprint(sessionFile(root, 'p'))
    const run = await logbook(['fork', 'p', '--at', '8'], { cwd })
    expect(run.code).toBe(0)
    expect(run.stdout).toBe('p-fork-1\n')
    const json = await logbook(['fork', 'p', '--as', 'child-b', '--json'], { cwd })
    expect(JSON.parse(json.stdout)).toEqual({ childId: 'child-b' })
    expect(fingerprint(sessionFile(root, 'p'))).toEqual(before)
    await withStore(root, async (app) => {
      const child = await app.persistence().readFrom('p-fork-1', 0)
      expect(child.slice(9).map(event => event.type)).toEqual(['session/end-seed', 'step/end', 'turn/end'])
      expect(child.at(-1)?.data).toEqual({ turn: 2, reason: { kind: 'forked' } })
      const page = await app.persistence().list({ parentSession: 'p' })
      expect(page.items.map(item => item.id).sort()).toEqual(['child-b', 'p-fork-1'])
    })
  })
})

describe('logbook compact', () => {
  const cwd = tempDir()
  const root = join(cwd, '.logbook')

  beforeAll(async () => {
    await withStore(root, async (app) => {
      for (const id of ['long', 'other']) {
        const agent = await app.agents().create({ sessionId: id, options: { provider: DEMO_PROVIDER, model: DEMO_MODEL } })
        await agent.send(DEMO_PROMPTS.plan)
        await agent.dispose()
      }
    })
  })

  it('L-114 compact on a session another process is writing is SESSION_LOCKED (exit 4), nothing written', async () => {
    await withStore(root, async (app) => {
      const handle = await app.persistence().open('long', 'write')
      try {
        const before = fingerprint(sessionFile(root, 'long'))
        const run = await logbook(['compact', 'long'], { cwd })
        expect(run.code).toBe(4)
        expect(lines(run.stderr)).toHaveLength(1)
        expect(run.stderr).toMatch(/^logbook: .*\[SESSION_LOCKED\]\n$/)
        expect(fingerprint(sessionFile(root, 'long'))).toEqual(before)
      } finally {
        await handle.close()
      }
    })
  })

  it('L-114 compact prints what it compacted, then nothing is left to compact', async () => {
    const run = await logbook(['compact', 'long'], { cwd })
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    expect(run.stdout).toMatch(/^compacted \d+ surface nodes \(~\d+ → ~\d+ tokens\)\n$/)
    const again = await logbook(['compact', 'long', '--json'], { cwd })
    expect(again.code).toBe(0)
    expect(again.stdout).toBe('null\n')
    const text = await logbook(['compact', 'long'], { cwd })
    expect(text.code).toBe(0)
    expect(text.stdout).toBe('nothing to compact\n')
    const verify = await logbook(['verify', 'long'], { cwd })
    expect(verify.code).toBe(0)
  })

  it('L-114 compact --json prints the region result of 03 §2.6, as stored', async () => {
    const run = await logbook(['compact', 'other', '--json'], { cwd })
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    const result = JSON.parse(run.stdout) as { compactionId: string; startSeq: number; summarySeq: number; checkpointSeq: number; endSeq: number; shadowedSeqs: number[] }
    expect(Object.keys(result).sort()).toEqual(['checkpointSeq', 'compactionId', 'endSeq', 'shadowedRange', 'shadowedSeqs', 'shadowedTokenCount', 'startSeq', 'summary', 'summarySeq', 'summaryTokenCount'])
    await withStore(root, async (app) => {
      const events = await app.persistence().readFrom('other', result.startSeq)
      expect(events.map(event => [event.seq, event.type])).toEqual([
        [result.startSeq, 'compaction/start'], [result.summarySeq, 'compaction/summary'], [result.checkpointSeq, 'user/message'], [result.endSeq, 'compaction/end'],
      ])
      expect((events[1]!.data as { compactionId: string }).compactionId).toBe(result.compactionId)
    })
  })
})
