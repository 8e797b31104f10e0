/**
 * `logbook search` through the real bin (spec 03 §6.2): ranked hits on the surface and only in the log (a real
 * compaction by compaction-basic), Chinese text, JSON, the hints that end the output, refusals with their exit codes,
 * sessions another process stored, and `--reindex` with progress.
 */

import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { SessionEvent } from '@logbook/session'
import { beforeAll, describe, expect, it } from 'vitest'
import { DEMO_MODEL, DEMO_PROVIDER } from '../src/app/embedded.ts'
import { DEMO_PROMPTS, DEMO_SYSTEM } from '../src/demo/script.ts'
import { lines, logbook } from './helpers/cli.ts'
import { storeEvents, tempDir, turnEvents, withStore } from './helpers/store.ts'

interface Hit { sessionId: string; title?: string; turn?: number; seq: number; type: string; field: string; onSurface: boolean; snippet: { text: string; match: boolean }[] }

describe('logbook search', () => {
  const cwd = tempDir()
  const root = join(cwd, '.logbook')
  let stored: readonly SessionEvent[] = []

  beforeAll(async () => {
    stored = await withStore(root, async (app) => {
      const agent = await app.agents().create({ sessionId: 'c1', options: { provider: DEMO_PROVIDER, model: DEMO_MODEL, system: DEMO_SYSTEM } })
      await agent.send(DEMO_PROMPTS.plan)
      await agent.send(DEMO_PROMPTS.explain)
      expect(await app.compaction().compactNow(agent)).not.toBeNull()
      await agent.dispose()
      await storeEvents(app, 'zh', turnEvents(0, 1, Date.UTC(2026, 0, 2), '我们今天把服务器部署到生产环境'))
      return app.persistence().readFrom('c1', 0)
    })
  })

  it('L-175 ranked hits: session, seq, turn, type and field, on surface or log only, title, the match marked; then how to open or fork', async () => {
    const run = await logbook(['search', 'Dana'], { cwd })
    expect(run.code).toBe(0)
    const note = stored.find(event => event.type === 'tool/result' && JSON.stringify(event.data).includes('Dana owns the release'))!
    expect(lines(run.stdout)).toEqual([
      `c1  seq ${note.seq} · turn 1 · tool/result tool-result · log only  Plan the release from my notes.`,
      '    …Code freeze on Thursday; «Dana» owns the release.',
    ])
    expect(lines(run.stderr)).toEqual([`open: logbook show c1 --at ${note.seq}`, `fork: logbook fork c1 --at ${note.seq}`])
    const summary = await logbook(['search', 'approver', '--limit', '50'], { cwd })
    const headings = lines(summary.stdout).filter(line => line.startsWith('c1'))
    expect(headings).toContainEqual(expect.stringMatching(/^c1 {2}seq \d+ · user\/message summary · on surface {2}Plan the release from my notes\.$/))
    expect(headings).toContainEqual(expect.stringMatching(/^c1 {2}seq \d+ · turn 1 · tool\/result tool-result · log only {2}/))
  })

  it('L-175 --json prints { hits } with every field; --session narrows; Chinese text is found; no match says so on stderr', async () => {
    const run = await logbook(['search', 'deploy', '--json', '--limit', '50'], { cwd })
    expect(run.code).toBe(0)
    const { hits } = JSON.parse(run.stdout) as { hits: Hit[] }
    expect(hits.length).toBeGreaterThan(3)
    expect(hits.some(hit => hit.onSurface) && hits.some(hit => !hit.onSurface)).toBe(true)
    for (const hit of hits) {
      expect(hit.sessionId).toBe('c1')
      expect(hit.snippet.some(part => part.match && part.text.toLowerCase() === 'deploy')).toBe(true)
      expect(stored[hit.seq]!.type).toBe(hit.type)
    }
    const zh = await logbook(['search', '部署到生产', '--session', 'zh'], { cwd })
    expect(lines(zh.stdout).sort()).toEqual([
      'zh  seq 1 · turn 1 · user/message user · on surface  我们今天把服务器部署到生产环境',
      '    我们今天把服务器«部署到生产»环境',
      'zh  seq 3 · turn 1 · assistant/message assistant · on surface  我们今天把服务器部署到生产环境',
      '    re: 我们今天把服务器«部署到生产»环境',
    ].sort())
    expect((await logbook(['search', 'deploy', '--session', 'zh'], { cwd })).stderr).toBe('no matches for "deploy"\n')
  })

  it('L-176 refusals: an FTS expression FTS5 rejects, no query, a bad limit or session id → exit 2; an unknown session → exit 3', async () => {
    const bad = await logbook(['search', 'deploy AND', '--fts'], { cwd })
    expect(bad.code).toBe(2)
    expect(lines(bad.stderr)).toEqual(['logbook: invalid search query "deploy AND": fts5: syntax error near "" [INVALID_QUERY]'])
    expect(bad.stdout).toBe('')
    const ok = await logbook(['search', 'deploy AND', '--limit', '1'], { cwd })
    expect(ok.code).toBe(0)
    expect(lines((await logbook(['search'], { cwd })).stderr)).toEqual(['logbook: search needs <query> [USAGE]'])
    expect((await logbook(['search', 'x', '--limit', '0'], { cwd })).code).toBe(2)
    expect((await logbook(['search', 'x', '--session', 'a/b'], { cwd })).code).toBe(2)
    const missing = await logbook(['search', 'x', '--session', 'nope'], { cwd })
    expect(missing.code).toBe(3)
    expect(lines(missing.stderr)).toEqual(['logbook: session "nope" not found [SESSION_NOT_FOUND]'])
  })

  it('L-176 a config app without persistence: search is NOT_CONFIGURED, one line, exit 1', async () => {
    const dir = tempDir()
    writeFileSync(join(dir, 'cordis.yml'), "- { id: session, name: '@logbook/session' }\n")
    const run = await logbook(['search', '--config', 'cordis.yml', 'anything'], { cwd: dir })
    expect(run.code).toBe(1)
    expect(lines(run.stderr)).toEqual(['logbook: session persistence is not configured (no plugin provides ctx.sessionPersistence) [NOT_CONFIGURED]'])
  })

  it('L-177 a session another process stored is found; --reindex rebuilds with progress lines', async () => {
    const dir = tempDir()
    const store = join(dir, '.logbook')
    await withStore(store, async (app) => {
      for (let i = 0; i < 25; i++) await storeEvents(app, `s${i}`, turnEvents(0, 1, Date.UTC(2026, 0, 3, 0, i), `the kingfisher number ${i}`))
    })
    // As if an app without the search plugin had written them: no index beside the store.
    for (const suffix of ['', '-wal', '-shm']) rmSync(join(store, `.search-index.sqlite${suffix}`), { force: true })
    const found = await logbook(['search', 'kingfisher', '--limit', '100', '--json', '--progress'], { cwd: dir })
    expect(found.code).toBe(0)
    // Each session holds the word twice: the prompt and the reply quoting it.
    expect((JSON.parse(found.stdout) as { hits: Hit[] }).hits).toHaveLength(50)
    expect(lines(found.stderr)).toEqual(['logbook: index sessions: 0/25', 'logbook: index sessions: 25/25'])
    const again = await logbook(['search', 'kingfisher', '--progress', '--limit', '1'], { cwd: dir })
    expect(lines(again.stderr)).toEqual([expect.stringMatching(/^open: /), expect.stringMatching(/^fork: /)])
    const rebuilt = await logbook(['search', '--reindex', '--progress'], { cwd: dir })
    expect(rebuilt.code).toBe(0)
    expect(rebuilt.stdout).toBe('')
    expect(lines(rebuilt.stderr)).toEqual(['logbook: reindex sessions: 0/25', 'logbook: reindex sessions: 25/25', 'logbook: indexed 25 of 25 sessions (50 texts)'])
    const other = await logbook(['--dir', store, 'search', 'number 7'], { cwd })
    expect(lines(other.stderr)).toEqual([`open: logbook --dir ${store} show s7 --at 1`, `fork: logbook --dir ${store} fork s7 --at 1`])
  })
})
