import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { browserMissing, launchBrowser } from './helpers/browser.ts'
import { logbook, startLogbook, startViewer, type CliProcess, type ViewerProcess } from './helpers/cli.ts'
import { fingerprint, sessionFile } from './helpers/files.ts'
import { tempDir } from './helpers/store.ts'

/** An app that resumes `demo-1` in another process and streams a reply that never finishes. */
function liveApp(root: string): string {
  const dir = tempDir('logbook-live-app-')
  writeFileSync(join(dir, 'script.json'), JSON.stringify({
    responses: [{ match: { lastUserIncludes: 'still there' }, text: 'Still here, and writing this reply slowly.', chunkSize: 4, chunkDelayMs: 40, hang: true }],
  }))
  const file = join(dir, 'cordis.yml')
  writeFileSync(file, [
    `- { id: session,     name: '@logbook/session' }`,
    `- { id: persistence, name: '@logbook/session-persistence-jsonl', config: { root: '${root}' } }`,
    `- { id: checkpoint,  name: '@logbook/session-checkpoint-policy' }`,
    `- { id: compaction,  name: '@logbook/compaction' }`,
    `- { id: llm,         name: '@logbook/llm' }`,
    `- { id: model,       name: '@logbook/llm-scripted', config: { script: ./script.json } }`,
    `- { id: tools,       name: '@logbook/tools' }`,
    `- { id: agents,      name: '@logbook/agent-loop', config: { agents: [{ id: main, resumeSessionId: demo-1, provider: scripted, model: demo, prompts: ['Are you still there?'] }] } }`,
  ].join('\n'))
  return file
}

describe.skipIf(browserMissing !== undefined)('the viewer in a browser', () => {
  const cwd = tempDir()
  const root = join(cwd, '.logbook')
  let viewer: ViewerProcess
  let browser: Browser
  let page: Page
  let writer: CliProcess | undefined

  beforeAll(async () => {
    const demo = await logbook(['demo', '--dir', root], { cwd })
    if (demo.code !== 0) throw new Error(`the demo failed: ${demo.stderr}`)
    viewer = await startViewer(['--dir', root], { cwd })
    browser = await launchBrowser()
    page = await browser.newPage()
  })
  afterAll(async () => {
    writer?.child.kill('SIGKILL')
    await writer?.done
    await browser?.close()
    await viewer?.stop()
  })

  it('L-173 list, search a word only a compacted original holds, open the hit, switch views, expand a compaction, follow a fork, watch a live turn', async () => {
    const before = { parent: fingerprint(sessionFile(root, 'demo-1')), child: fingerprint(sessionFile(root, 'demo-1-fork-1')) }

    // The list, reached through the printed address; the token is gone from the address bar.
    await page.goto(viewer.url)
    expect(page.url()).toBe(`${viewer.base}/`)
    const rows = page.locator('table.sessions tbody tr')
    await expect.poll(() => rows.count()).toBe(2)
    const child = page.locator('tr[data-session="demo-1-fork-1"]')
    expect(await child.locator('td').nth(0).innerText()).toContain('Plan the release from my notes.')
    expect(await child.locator('td').nth(5).innerText()).toBe('demo-1')

    // A query the FTS syntax rejects is one message on the page, never a stack.
    await page.fill('input[name=q]', 'Dana AND')
    await page.check('input[name=fts]')
    await page.click('form.search button')
    expect(await page.locator('main.search [role=alert]').innerText()).toBe('invalid search query "Dana AND": fts5: syntax error near ""')
    expect(await page.locator('main.search').innerText()).not.toMatch(/\.ts:\d+|at async/)
    expect(await page.locator('ol.hits').count()).toBe(0)

    // "Dana" is only in a note that turn 1 read, and demo-1 compacted that turn away.
    await page.fill('input[name=q]', 'Dana')
    await page.uncheck('input[name=fts]')
    await page.click('form.search button')
    const hit = page.locator('ol.hits li[data-session="demo-1"]').first()
    expect(await hit.locator('.badge').first().innerText()).toBe('only in the log')
    expect(await hit.locator('mark').first().innerText()).toBe('Dana')
    await hit.locator('a.hit-link').click()
    const target = page.locator('#log-view .target')
    await target.waitFor()
    expect(await target.innerText()).toContain('Dana owns the release')
    expect(await target.isVisible()).toBe(true)
    expect(await page.locator('#log-view .target .badge.off-surface').first().innerText()).toMatch(/^not on the surface — compacted \(seq \d+\)$/)

    // What the model sees: the summary in place of turn 1, the note gone.
    await page.click('label[for=view-surface]')
    expect(await page.locator('#log-view').isVisible()).toBe(false)
    const surface = page.locator('#surface-view')
    expect(await surface.isVisible()).toBe(true)
    const compaction = surface.locator('.compaction').first()
    expect(await compaction.locator('.summary').innerText()).toContain('Goal and requests')
    expect(await compaction.locator('.tokens').innerText()).toMatch(/^~\d+ → ~\d+ tokens$/)
    const originals = compaction.locator('details.originals')
    expect(await originals.locator('.msg').first().isVisible()).toBe(false)
    await originals.locator('summary').click()
    expect(await originals.locator('.msg').first().isVisible()).toBe(true)
    expect(await originals.innerText()).toContain('Dana owns the release')
    await page.click('label[for=view-log]')
    expect(await page.locator('#log-view').isVisible()).toBe(true)

    // The fork tree: one click to the child, which marks where it was cut from its parent.
    await page.click('nav.fork-tree li.child a.session-link')
    await page.waitForURL(`${viewer.base}/session/demo-1-fork-1`)
    expect(await page.locator('#session-head h1').innerText()).toBe('Plan the release from my notes.')
    expect(await page.locator('#log-view .marker.fork-seed').innerText()).toMatch(/^Forked from demo-1 after seq \d+: the events above are the parent's$/)
    await page.click('nav.fork-tree li.parent a.session-link')
    await page.waitForURL(/\/session\/demo-1\?at=\d+/)

    // Another process resumes demo-1 and streams a reply: the open page shows the new turn, running.
    await page.goto(`${viewer.base}/session/demo-1`)
    expect(await page.locator('#turn-5').count()).toBe(0)
    writer = startLogbook(['run', '--config', liveApp(root)], { cwd })
    const turn5 = page.locator('#log-view #turn-5')
    await turn5.waitFor({ timeout: 60_000 })
    expect(await turn5.locator('.msg.user .text').innerText()).toBe('Are you still there?')
    await turn5.locator('.badge.running', { hasText: 'streaming…' }).waitFor({ timeout: 60_000 })
    expect(await turn5.locator('.turn-head .badge.running').innerText()).toBe('running')
    expect(await page.locator('#session-head .state').innerText()).toContain('turn 5 running')
    expect(await turn5.locator('.synthetic').count()).toBe(0)
    writer.child.kill('SIGKILL')
    await writer.done
    writer = undefined
    // Reloaded, the page learns that nobody holds the session any more: the turn is open, its writer stopped.
    await page.reload()
    expect(await page.locator('#session-head .state').innerText()).toContain('turn 5 is open; its writer stopped')
    expect(await page.locator('#turn-5 .turn-head .badge.stopped').innerText()).toBe('open — its writer stopped')
    expect(await page.locator('#turn-5 .synthetic').count()).toBe(0)

    // Browsing wrote nothing: the child's file is untouched (the parent's grew only by the other process's turn).
    expect(fingerprint(sessionFile(root, 'demo-1-fork-1'))).toEqual(before.child)
    expect(fingerprint(sessionFile(root, 'demo-1')).size).toBeGreaterThan(before.parent.size)
  })

  it('L-174 the html export opens from disk with the network off: the transcript, both views, a compaction expanded, no request', async () => {
    const out = join(cwd, 'demo-1.html')
    const run = await logbook(['export', 'demo-1-fork-1', '--dir', root, '--format', 'html', '--out', out], { cwd })
    expect(run.code).toBe(0)
    const exported = await logbook(['export', 'demo-1', '--dir', root, '--format', 'html', '--out', join(cwd, 'parent.html')], { cwd })
    expect(exported.code).toBe(0)
    const context = await browser.newContext({ offline: true })
    const requests: string[] = []
    context.on('request', request => requests.push(request.url()))
    try {
      const file = await context.newPage()
      await file.goto(`file://${join(cwd, 'parent.html')}`)
      expect(await file.locator('#session-head h1').innerText()).toBe('Plan the release from my notes.')
      expect(await file.locator('#log-view article.turn').count()).toBeGreaterThanOrEqual(4)
      expect(await file.locator('#log-view .turn-end.interrupted').count()).toBe(1)
      expect(await file.locator('#log-view .result.synthetic .badge.code').first().innerText()).toBe('TOOL_OUTCOME_UNKNOWN')
      await file.click('label[for=view-surface]')
      const compaction = file.locator('#surface-view .compaction').first()
      expect(await compaction.isVisible()).toBe(true)
      await compaction.locator('details.originals summary').click()
      expect(await compaction.locator('details.originals').innerText()).toContain('Dana owns the release')
      expect(requests).toEqual([`file://${join(cwd, 'parent.html')}`])
    } finally {
      await context.close()
    }
  })
})
