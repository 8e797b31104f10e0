/**
 * `logbook delete <id> [--yes]` (spec 03 §6.2): through the real bin, and through `main` with a terminal on stdin for
 * the question. A deleted session never shows in list, show or search; a refusal leaves the store byte for byte.
 */

import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { main } from '../src/main.ts'
import { lines, logbook } from './helpers/cli.ts'
import { storeEvents, tempDir, turnEvents, withStore } from './helpers/store.ts'

/** Every file below `dir` with its bytes, for before/after comparisons. */
function snapshot(dir: string): Record<string, string> {
  const files: Record<string, string> = {}
  const walk = (path: string): void => {
    for (const name of readdirSync(path)) {
      const full = join(path, name)
      if (statSync(full).isDirectory()) walk(full)
      else files[full] = readFileSync(full, 'base64')
    }
  }
  walk(dir)
  return files
}

async function store(): Promise<{ cwd: string; root: string }> {
  const cwd = tempDir()
  const root = join(cwd, '.logbook')
  await withStore(root, async (app) => {
    await storeEvents(app, 'gone', turnEvents(0, 1, Date.UTC(2026, 1, 1), 'the jackdaw plan'))
    await storeEvents(app, 'kept', turnEvents(0, 1, Date.UTC(2026, 1, 2), 'another jackdaw'))
  })
  return { cwd, root }
}

/** Run `main` in this process with a terminal (or not) on stdin that answers `answer`. */
async function inProcess(argv: string[], cwd: string, answer: string, tty: boolean): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = ''
  let stderr = ''
  const stdin = Object.assign(new PassThrough(), { isTTY: tty })
  stdin.end(answer)
  const code = await main(argv, {
    cwd, handleSigint: false,
    streams: { stdout: { write: (text: string) => (stdout += text) }, stderr: { write: (text: string) => (stderr += text) }, env: { NO_COLOR: '1' }, stdin },
  })
  return { code, stdout, stderr }
}

describe('logbook delete', () => {
  it('L-179 without --yes and without a terminal it refuses with one usage line; the store is unchanged', async () => {
    const { cwd, root } = await store()
    const before = snapshot(root)
    const run = await logbook(['delete', 'gone'], { cwd })
    expect(run.code).toBe(2)
    expect(lines(run.stderr)).toEqual(['logbook: delete needs --yes when stdin is not a terminal [USAGE]'])
    expect(snapshot(root)).toEqual(before)
  })

  it('L-179 --yes deletes; the session no longer shows in list, show or search; a missing id is exit 3', async () => {
    const { cwd } = await store()
    expect((JSON.parse((await logbook(['search', 'jackdaw', '--json'], { cwd })).stdout) as { hits: { sessionId: string }[] }).hits.map(hit => hit.sessionId).sort())
      .toEqual(['gone', 'gone', 'kept', 'kept'])
    const run = await logbook(['delete', 'gone', '--yes'], { cwd })
    expect(run.code).toBe(0)
    expect(lines(run.stdout)).toEqual(['deleted gone'])
    const listed = JSON.parse((await logbook(['list', '--json'], { cwd })).stdout) as { items: { id: string }[] }
    expect(listed.items.map(item => item.id)).toEqual(['kept'])
    const show = await logbook(['show', 'gone'], { cwd })
    expect(show.code).toBe(3)
    expect(lines(show.stderr)).toEqual(['logbook: session "gone" not found [SESSION_NOT_FOUND]'])
    const hits = JSON.parse((await logbook(['search', 'jackdaw', '--json'], { cwd })).stdout) as { hits: { sessionId: string }[] }
    expect(hits.hits.map(hit => hit.sessionId)).toEqual(['kept', 'kept'])
    const again = await logbook(['delete', 'gone', '--yes'], { cwd })
    expect(again.code).toBe(3)
    expect(lines(again.stderr)).toEqual(['logbook: session "gone" not found [SESSION_NOT_FOUND]'])
  })

  it('L-179 a session another process is writing is not deleted: exit 4 SESSION_LOCKED, the store unchanged', async () => {
    const { cwd, root } = await store()
    const holder = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', fileURLToPath(new URL('./helpers/hold.ts', import.meta.url)), root, 'gone'], {
      cwd: fileURLToPath(new URL('..', import.meta.url)), stdio: ['ignore', 'pipe', 'inherit'],
    })
    try {
      await once(holder.stdout!, 'data')
      const before = snapshot(root)
      const run = await logbook(['delete', 'gone', '--yes'], { cwd })
      expect(run.code).toBe(4)
      expect(lines(run.stderr)).toEqual([expect.stringMatching(/^logbook: .*"gone".* \[SESSION_LOCKED\]$/)])
      expect(snapshot(root)).toEqual(before)
    } finally {
      holder.kill('SIGKILL')
      await once(holder, 'exit')
    }
  })

  it('L-180 on a terminal it asks: no keeps the session, yes deletes it', async () => {
    const { cwd, root } = await store()
    const before = snapshot(root)
    const kept = await inProcess(['delete', 'gone'], cwd, 'n\n', true)
    expect(kept.code).toBe(0)
    expect(kept.stderr).toBe('logbook: delete session "gone" (6 events)? [y/N] logbook: kept gone\n')
    expect(kept.stdout).toBe('')
    expect(snapshot(root)).toEqual(before)
    const deleted = await inProcess(['delete', 'gone'], cwd, 'yes\n', true)
    expect(deleted.code).toBe(0)
    expect(deleted.stdout).toBe('deleted gone\n')
    expect((await inProcess(['show', 'gone'], cwd, '', false)).code).toBe(3)
    expect((await inProcess(['delete', 'kept'], cwd, 'y\n', false)).code).toBe(2)
  })
})
