import { cpSync, mkdirSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { DEMO_MODEL, DEMO_PROVIDER } from '../src/app/embedded.ts'
import { DEMO_PROMPTS } from '../src/demo/script.ts'
import { lines, logbook } from './helpers/cli.ts'
import { storeConfig, useTestDatabase } from './helpers/postgres.ts'
import { tempDir, withStore } from './helpers/store.ts'

const examples = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'examples')
const database = useTestDatabase()

describe('examples/postgres', () => {
  function copy(): string {
    const dir = join(tempDir('logbook-example-'), 'postgres')
    mkdirSync(dir)
    for (const file of ['cordis.yml', 'script.json']) cpSync(join(examples, 'postgres', file), join(dir, file))
    return join(dir, 'cordis.yml')
  }

  it('L-154 differs from examples/jsonl in the persistence row, which reads DATABASE_URL, and the search index path', () => {
    const jsonl = readFileSync(join(examples, 'jsonl', 'cordis.yml'), 'utf8').split('\n')
    const postgres = readFileSync(join(examples, 'postgres', 'cordis.yml'), 'utf8').split('\n')
    expect(postgres).toHaveLength(jsonl.length)
    expect(jsonl.flatMap((line, index) => (line === postgres[index] ? [] : [[line, postgres[index]]]))).toEqual([[
      `- { id: persistence, name: '@logbook/session-persistence-jsonl', config: { root: ./.logbook } }`,
      `- { id: persistence, name: '@logbook/session-persistence-postgres', config: { connectionString: !!js process.env.DATABASE_URL } }`,
    ], [
      `- { id: search,      name: '@logbook/session-search' }`,
      `- { id: search,      name: '@logbook/session-search', config: { path: ./.logbook/search-index.sqlite } }`,
    ]])
  })

  it('L-154 boots against the server in DATABASE_URL and runs its turns; list, show, verify, fork and compact work on it', async () => {
    const file = copy()
    const options = { cwd: dirname(file), env: { DATABASE_URL: database() } }
    const run = await logbook(['run', '--config', file], options)
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    expect(lines(run.stdout)).toContain('── turn 2 ended: completed ──')
    const listed = await logbook(['list', '--config', file, '--json'], options)
    expect(listed.code, listed.stderr).toBe(0)
    const items = (JSON.parse(listed.stdout) as { items: { id: string; events: number }[] }).items
    expect(items).toHaveLength(1)
    const id = items[0]!.id
    const shown = await logbook(['show', id, '--config', file], options)
    expect(shown.code, shown.stderr).toBe(0)
    expect(shown.stdout).toContain('Hello! I am a scripted model running offline.')
    const verified = await logbook(['verify', id, '--config', file], options)
    expect(verified.code, verified.stdout + verified.stderr).toBe(0)
    const forked = await logbook(['fork', id, '--as', 'child', '--config', file], options)
    expect(forked.code, forked.stderr).toBe(0)
    expect(lines(forked.stdout)).toEqual(['child'])
    // A conversation long enough to compact, moved in from a JSONL store as the README shows.
    const jsonlRoot = join(dirname(file), 'jsonl')
    await withStore(jsonlRoot, async (app) => {
      const agent = await app.agents().create({ sessionId: 'long', options: { provider: DEMO_PROVIDER, model: DEMO_MODEL } })
      await agent.send(DEMO_PROMPTS.plan)
      await agent.dispose()
    })
    const moved = await logbook(['--config', storeConfig(dirname(file), 'jsonl-store', { kind: 'jsonl', root: jsonlRoot }), 'transfer', '--to', file, 'long'], options)
    expect(moved.code, moved.stderr).toBe(0)
    const compacted = await logbook(['compact', 'long', '--config', file], options)
    expect(compacted.code, compacted.stderr).toBe(0)
    expect(compacted.stdout).not.toContain('nothing to compact')
    const after = await logbook(['list', '--config', file, '--json'], options)
    expect((JSON.parse(after.stdout) as { items: { id: string }[] }).items.map(i => i.id).sort()).toEqual(['child', id, 'long'].sort())
  })

  it('L-154 without DATABASE_URL the boot fails (exit 1) with one line naming the missing connectionString', async () => {
    const file = copy()
    const run = await logbook(['list', '--config', file], { cwd: dirname(file), env: { DATABASE_URL: undefined } })
    expect(run.code).toBe(1)
    // One line for the bad row; each entry that needs its service reports that it waits.
    expect(lines(run.stderr)).toEqual([
      'logbook: entry persistence (@logbook/session-persistence-postgres) failed: invalid config: - $.connectionString missing required value (at connectionString)',
      'logbook: entry checkpoint (@logbook/session-checkpoint-policy) is waiting for service sessionPersistence',
      'logbook: entry search (@logbook/session-search) is waiting for service sessionPersistence',
    ])
  })
})
