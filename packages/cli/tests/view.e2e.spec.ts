import { createServer } from 'node:net'
import { join } from 'node:path'
import { writeFileSync } from 'node:fs'
import { beforeAll, describe, expect, it } from 'vitest'
import { lines, logbook, startViewer } from './helpers/cli.ts'
import { fingerprint, sessionFile } from './helpers/files.ts'
import { storeEvents, tempDir, turnEvents, withStore } from './helpers/store.ts'

describe('logbook view', () => {
  const cwd = tempDir()
  const root = join(cwd, '.logbook')

  beforeAll(async () => {
    await withStore(root, app => storeEvents(app, 'viewed', [...turnEvents(0, 1, 1_000, 'hello <b>there</b>'), ...turnEvents(6, 2, 2_000, 'again')]))
  })

  it('L-170 prints its address with a one-time token; the page needs it; Ctrl-C stops it (130); the store is unchanged', async () => {
    const before = fingerprint(sessionFile(root, 'viewed'))
    const viewer = await startViewer([], { cwd })
    try {
      expect(viewer.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{43}$/)
      expect((await fetch(`${viewer.base}/session/viewed`)).status).toBe(403)
      const swap = await fetch(viewer.url, { redirect: 'manual' })
      expect(swap.status).toBe(303)
      const cookie = swap.headers.get('set-cookie')!.split(';')[0]!
      const page = await fetch(`${viewer.base}/session/viewed`, { headers: { cookie } })
      expect(page.status).toBe(200)
      const text = await page.text()
      expect(text).toContain('hello &lt;b&gt;there&lt;/b&gt;')
      expect(text).toContain('re: again')
      expect((await fetch(`${viewer.base}/session/ghost`, { headers: { cookie } })).status).toBe(404)
    } finally {
      const run = await viewer.stop()
      expect(run.code).toBe(130)
      expect(lines(run.stdout)).toEqual([viewer.url])
      expect(lines(run.stderr)).toEqual([
        'logbook: serving the session viewer on 127.0.0.1; open the address above (it works once), Ctrl-C stops',
        'logbook: interrupted',
      ])
    }
    expect(fingerprint(sessionFile(root, 'viewed'))).toEqual(before)
  })

  it('L-170 a bad --port is a usage error (2); a taken port is one line LISTEN_FAILED (1)', async () => {
    const bad = await logbook(['view', '--port', 'eighty'], { cwd })
    expect(bad.code).toBe(2)
    expect(lines(bad.stderr)).toEqual(['logbook: option --port must be a non-negative integer, got "eighty" [USAGE]'])
    const taken = createServer()
    await new Promise<void>(resolve => taken.listen(0, '127.0.0.1', resolve))
    const port = (taken.address() as { port: number }).port
    try {
      const run = await logbook(['view', '--port', String(port)], { cwd })
      expect(run.code).toBe(1)
      expect(lines(run.stderr)).toEqual([expect.stringMatching(new RegExp(`^logbook: cannot listen on 127\\.0\\.0\\.1:${port}: .*EADDRINUSE.* \\[LISTEN_FAILED\\]$`))])
      expect(run.stdout).toBe('')
    } finally {
      taken.close()
    }
  })

  it('L-170 --config serves the stores of that app, through its own session-viewer entry when it has one, with search', async () => {
    const dir = tempDir('logbook-view-app-')
    const file = join(dir, 'cordis.yml')
    const free = createServer()
    await new Promise<void>(resolve => free.listen(0, '127.0.0.1', resolve))
    const port = (free.address() as { port: number }).port
    await new Promise<void>(resolve => free.close(() => resolve()))
    writeFileSync(file, [
      `- { id: session,     name: '@logbook/session' }`,
      `- { id: persistence, name: '@logbook/session-persistence-jsonl', config: { root: '${root}' } }`,
      `- { id: projection,  name: '@logbook/session-projection' }`,
      `- { id: viewer,      name: '@logbook/session-viewer', config: { port: ${port} } }`,
    ].join('\n'))
    const refused = await logbook(['view', '--config', file, '--port', '0'], { cwd: dir })
    expect(refused.code).toBe(2)
    expect(lines(refused.stderr)).toEqual(['logbook: --port cannot be used: the app serves the viewer itself (its session-viewer entry sets the port) [USAGE]'])
    const viewer = await startViewer(['--config', file], { cwd: dir })
    expect(viewer.base).toBe(`http://127.0.0.1:${port}`)
    try {
      const swap = await fetch(viewer.url, { redirect: 'manual' })
      const cookie = swap.headers.get('set-cookie')!.split(';')[0]!
      const list = await (await fetch(`${viewer.base}/`, { headers: { cookie } })).text()
      expect(list).toContain('<tr data-session="viewed">')
      // The app has no search entry: view loads the search plugin for the search box.
      const found = await fetch(`${viewer.base}/search?q=again`, { headers: { cookie } })
      expect(found.status).toBe(200)
      expect(await found.text()).toContain('<li data-session="viewed"')
    } finally {
      await viewer.stop()
    }
  })
})
