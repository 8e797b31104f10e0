import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { lines, logbook } from './helpers/cli.ts'
import { sessionFile } from './helpers/files.ts'
import { storeEvents, tempDir, turnEvents, withStore } from './helpers/store.ts'

const T0 = Date.UTC(2026, 0, 1)

describe('logbook list', () => {
  const cwd = tempDir()
  const root = join(cwd, '.logbook')

  beforeAll(async () => {
    await withStore(root, async (app) => {
      for (let i = 0; i < 45; i++) {
        const id = `s-${String(i).padStart(2, '0')}`
        await storeEvents(app, id, turnEvents(0, 1, T0 + i * 1000, `Question number ${i}`), i === 44 ? { parentSession: 's-00' as never } : {})
      }
    })
  })

  function ids(stdout: string): string[] {
    const [header, ...rows] = lines(stdout)
    expect(header).toMatch(/^ID +CREATED +EVENTS +TURNS +TITLE +PARENT$/)
    return rows.map(row => row.split(/ +/)[0]!)
  }

  it('L-110 45 sessions with --limit 20 come in pages of 20, 20 and 5; only the last has no more: line', async () => {
    const first = await logbook(['list', '--limit', '20'], { cwd })
    expect(first.code).toBe(0)
    const page1 = ids(first.stdout)
    expect(page1).toHaveLength(20)
    expect(page1[0]).toBe('s-44')
    const more1 = /^more: logbook list --cursor (\S+)$/.exec(first.stderr.trim())
    expect(more1).not.toBeNull()
    const second = await logbook(['list', '--limit', '20', '--cursor', more1![1]!], { cwd })
    const page2 = ids(second.stdout)
    expect(page2).toHaveLength(20)
    const more2 = /^more: logbook list --cursor (\S+)$/.exec(second.stderr.trim())
    expect(more2).not.toBeNull()
    const third = await logbook(['list', '--limit', '20', '--cursor', more2![1]!], { cwd })
    const page3 = ids(third.stdout)
    expect(page3).toEqual(['s-04', 's-03', 's-02', 's-01', 's-00'])
    expect(third.stderr).toBe('')
    expect(new Set([...page1, ...page2, ...page3]).size).toBe(45)
  })

  it('L-205 an empty store lists nothing on stdout and says so on stderr (not with --quiet)', async () => {
    const empty = tempDir()
    const run = await logbook(['list'], { cwd: empty })
    expect(run).toMatchObject({ code: 0, stdout: '', stderr: 'no stored sessions\n' })
    const quiet = await logbook(['list', '--quiet'], { cwd: empty })
    expect(quiet).toMatchObject({ code: 0, stdout: '', stderr: '' })
    const json = await logbook(['list', '--json'], { cwd: empty })
    expect(json.code).toBe(0)
    expect(JSON.parse(json.stdout)).toEqual({ items: [], nextCursor: null })
    expect(json.stderr).toBe('')
  })

  it('L-110 each row shows id, ISO created time, events, turns, title and parent', async () => {
    const run = await logbook(['list', '--limit', '2'], { cwd })
    const [, top, next] = lines(run.stdout)
    expect(top!.split(/ {2,}/)).toEqual(['s-44', new Date(T0 + 44_000).toISOString(), '6', '1', 'Question number 44', 's-00'])
    expect(next!.split(/ {2,}/)).toEqual(['s-43', new Date(T0 + 43_000).toISOString(), '6', '1', 'Question number 43', '-'])
  })

  it('L-118 --progress on a list of more than 20 sessions reports on stderr; the page has no more: line', async () => {
    const run = await logbook(['list', '--limit', '45', '--progress'], { cwd })
    expect(run.code).toBe(0)
    expect(ids(run.stdout)).toHaveLength(45)
    const progress = lines(run.stderr)
    expect(progress[0]).toBe('logbook: list sessions: 0/45')
    expect(progress.at(-1)).toBe('logbook: list sessions: 45/45')
    expect(progress.every(line => /^logbook: list sessions: \d+\/45$/.test(line))).toBe(true)
    const small = await logbook(['list', '--limit', '20', '--progress', '--json'], { cwd })
    expect(small.stderr).toBe('')
  })

  it('L-110 turns and title show - when the session cannot be summarised', async () => {
    const here = tempDir()
    const store = join(here, '.logbook')
    await withStore(store, async (app) => {
      await storeEvents(app, 'fine', turnEvents(0, 1, T0, 'All good'))
      await storeEvents(app, 'broken', [...turnEvents(0, 1, T0 + 1000, 'Broken soon'), ...turnEvents(6, 2, T0 + 1000, 'more')])
    })
    const file = sessionFile(store, 'broken')
    const rows = readFileSync(file, 'utf8').split('\n')
    rows[3] = 'not json'
    writeFileSync(file, rows.join('\n'))
    const run = await logbook(['list', '--json'], { cwd: here })
    expect(run.code).toBe(0)
    const page = JSON.parse(run.stdout) as { items: { id: string; turns: number | null; title: string | null }[] }
    expect(page.items.map(({ id, turns, title }) => ({ id, turns, title }))).toEqual([
      { id: 'broken', turns: null, title: null },
      { id: 'fine', turns: 1, title: 'All good' },
    ])
    const text = await logbook(['list'], { cwd: here })
    expect(lines(text.stdout)[1]!.split(/ {2,}/)).toEqual(['broken', new Date(T0 + 1000).toISOString(), '12', '-', '-', '-'])
  })

  it('L-110 --json prints { items, nextCursor }; --quiet drops the more: line', async () => {
    const run = await logbook(['list', '--limit', '1', '--json'], { cwd })
    const page = JSON.parse(run.stdout) as { items: unknown[]; nextCursor: string | null }
    expect(page.items).toEqual([{ id: 's-44', created: new Date(T0 + 44_000).toISOString(), events: 6, turns: 1, title: 'Question number 44', parent: 's-00' }])
    expect(typeof page.nextCursor).toBe('string')
    const quiet = await logbook(['list', '--limit', '1', '--quiet'], { cwd })
    expect(quiet.stderr).toBe('')
    const bad = await logbook(['list', '--limit', '0'], { cwd })
    expect(bad.code).toBe(2)
    const cursor = await logbook(['list', '--cursor', 'garbage'], { cwd })
    expect(cursor.code).toBe(2)
    expect(cursor.stderr).toMatch(/^logbook: invalid --cursor: .*\[USAGE\]\n$/)
  })
})
