import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { DEMO_MODEL, DEMO_PROVIDER } from '../src/app/embedded.ts'
import { DEMO_PROMPTS } from '../src/demo/script.ts'
import { sessionFile, fingerprint } from './helpers/files.ts'
import { lines, logbook } from './helpers/cli.ts'
import { tempDir, withStore } from './helpers/store.ts'

describe('logbook show --projections', () => {
  const cwd = tempDir()
  const root = join(cwd, '.logbook')

  beforeAll(async () => {
    await withStore(root, async (app) => {
      const agent = await app.agents().create({ sessionId: 'p1', options: { provider: DEMO_PROVIDER, model: DEMO_MODEL } })
      await agent.send(DEMO_PROMPTS.plan)
      await agent.dispose()
    })
  })

  it('L-138 prints every registered projection\'s view of a stored session, read-only; --json is the snapshot', async () => {
    const before = fingerprint(sessionFile(root, 'p1'))
    const run = await logbook(['show', 'p1', '--projections'], { cwd })
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    const out = lines(run.stdout)
    expect(out[0]).toMatch(/^projections of p1 as of seq \d+:$/)
    expect(out.slice(1).map(line => line.split(':')[0]!.trim())).toEqual(['stats', 'todos', 'title'])
    expect(out[2]).toBe('  todos: [{"content":"Code freeze on Thursday","status":"pending"},{"content":"Deploy to staging and smoke-test /health","status":"pending"},{"content":"Get a second approver for production","status":"pending"}]')
    expect(out[3]).toBe(`  title: ${JSON.stringify(DEMO_PROMPTS.plan)}`)
    const json = await logbook(['show', 'p1', '--projections', '--json'], { cwd })
    const snapshot = JSON.parse(json.stdout) as { sessionId: string; asOfSeq: number; values: { stats: { turns: number } }; faults: object }
    expect(snapshot).toMatchObject({ sessionId: 'p1', values: { stats: { turns: 1 } }, faults: {} })
    expect(out[0]).toBe(`projections of p1 as of seq ${snapshot.asOfSeq}:`)
    expect(fingerprint(sessionFile(root, 'p1'))).toEqual(before)
  })

  it('L-138 --projections does not combine with --surface or --log; an unknown id is SESSION_NOT_FOUND', async () => {
    const both = await logbook(['show', 'p1', '--projections', '--log'], { cwd })
    expect([both.code, both.stderr]).toEqual([2, 'logbook: --log and --projections cannot be combined [USAGE]\n'])
    const missing = await logbook(['show', 'nope', '--projections'], { cwd })
    expect([missing.code, missing.stderr]).toEqual([3, 'logbook: session "nope" not found [SESSION_NOT_FOUND]\n'])
  })
})
