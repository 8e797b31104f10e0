import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { lines, logbook } from './helpers/cli.ts'
import { freshSchema, storeConfig, useTestDatabase, type StoreSpec } from './helpers/postgres.ts'
import { storeEvents, tempDir, turnEvents, withStore } from './helpers/store.ts'

const T0 = Date.UTC(2026, 1, 1)
const database = useTestDatabase()

describe('logbook transfer', () => {
  const cwd = tempDir()
  const jsonl = (name: string): StoreSpec => ({ kind: 'jsonl', root: join(cwd, name) })
  const sqlite = (name: string): StoreSpec => ({ kind: 'sqlite', path: join(cwd, `${name}.sqlite`) })
  const postgres = (): StoreSpec => ({ kind: 'postgres', url: database(), schema: freshSchema() })
  const show = async (config: string, id: string): Promise<string> => {
    const run = await logbook(['--config', config, 'show', id, '--json'], { cwd })
    expect(run.code, run.stderr).toBe(0)
    return run.stdout
  }

  beforeAll(async () => {
    await withStore(join(cwd, 'origin'), async (app) => {
      await storeEvents(app, 'alpha', [...turnEvents(0, 1, T0, 'first'), ...turnEvents(6, 2, T0 + 1000, 'second')])
      await storeEvents(app, 'beta', turnEvents(0, 1, T0 + 5000, 'open one', { open: true }))
    })
  })

  it('L-153 copies every session losslessly along JSONL → SQLite → PostgreSQL → JSONL → PostgreSQL → SQLite → JSONL', async () => {
    const chain: StoreSpec[] = [jsonl('origin'), sqlite('b'), postgres(), jsonl('d'), postgres(), sqlite('f'), jsonl('g')]
    const configs = chain.map((store, i) => storeConfig(cwd, `store-${i}`, store))
    const original = { alpha: await show(configs[0]!, 'alpha'), beta: await show(configs[0]!, 'beta') }
    for (let i = 0; i + 1 < configs.length; i++) {
      const run = await logbook(['--config', configs[i]!, 'transfer', '--to', configs[i + 1]!, '--all'], { cwd })
      expect(run.stderr, `${chain[i]!.kind} → ${chain[i + 1]!.kind}`).toBe('')
      expect(run.code).toBe(0)
      expect(lines(run.stdout).sort()).toEqual(['alpha\tcopied (12 events)', 'beta\tcopied (5 events)'])
    }
    // Each step read its copy back and compared it; the stores a person would look at show the same sessions.
    for (const config of [configs[2]!, configs.at(-1)!]) {
      for (const id of ['alpha', 'beta'] as const) expect(await show(config, id)).toBe(original[id])
    }
    const again = await logbook(['--config', configs[1]!, 'transfer', '--to', configs[2]!, 'alpha'], { cwd })
    expect(again.code).toBe(0)
    expect(lines(again.stdout)).toEqual(['alpha\tskipped (12 events)'])
  })

  it('L-153 a different session under the same id in the destination is refused and left alone; the others go on', async () => {
    const target = storeConfig(cwd, 'clash', sqlite('clash'))
    await withStore({ kind: 'sqlite', path: join(cwd, 'clash.sqlite') }, async (app) => {
      await storeEvents(app, 'alpha', turnEvents(0, 1, T0, 'not the same'))
    })
    const before = await show(target, 'alpha')
    const run = await logbook(['--config', storeConfig(cwd, 'origin-again', jsonl('origin')), 'transfer', '--to', target, 'alpha', 'beta'], { cwd })
    expect(run.code).toBe(1)
    expect(lines(run.stderr)).toEqual(['logbook: alpha: not transferred: the destination already holds a different session "alpha" (it holds 6 events, not 12); left as it is'])
    expect(lines(run.stdout)).toEqual(['beta\tcopied (5 events)'])
    expect(await show(target, 'alpha')).toBe(before)
  })

  it('L-153 usage: --to is required, and exactly one of <id>… and --all', async () => {
    const source = storeConfig(cwd, 'usage', jsonl('origin'))
    for (const [args, message] of [
      [['transfer', 'alpha'], 'logbook: transfer needs --to <cordis.yml> [USAGE]'],
      [['transfer', '--to', source], 'logbook: transfer needs <id>… or --all [USAGE]'],
      [['transfer', '--to', source, '--all', 'alpha'], 'logbook: transfer takes <id>… or --all, not both [USAGE]'],
    ] as const) {
      const run = await logbook(['--config', source, ...args], { cwd })
      expect(run.code).toBe(2)
      expect(lines(run.stderr)).toEqual([message])
    }
  })
})
