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
      const agent = await app.agents().create({ sessionId: 'long', options: { provider: DEMO_PROVIDER, model: DEMO_MODEL } })
      await agent.send(DEMO_PROMPTS.plan)
      await agent.dispose()
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
    const verify = await logbook(['verify', 'long'], { cwd })
    expect(verify.code).toBe(0)
  })
})
