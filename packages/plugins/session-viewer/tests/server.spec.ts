import { createHash } from 'node:crypto'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { get, rawGet, signIn, startViewer, type ViewerApp } from './app.ts'
import { LogBuilder } from './log.ts'

/** Every file under `dir` with the SHA-256 of its bytes. */
function fingerprints(dir: string): Record<string, string> {
  const out: Record<string, string> = {}
  const walk = (folder: string): void => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name)
      if (entry.isDirectory()) walk(path)
      else out[path.slice(dir.length)] = `${statSync(path).size}:${createHash('sha256').update(readFileSync(path)).digest('hex')}`
    }
  }
  walk(dir)
  return out
}

describe('the viewer server', () => {
  let app: ViewerApp
  let cookie: string
  let parentLog: LogBuilder

  beforeAll(async () => {
    app = await startViewer({
      config: { turnsPerPage: 2 },
      search: true,
    })
    parentLog = new LogBuilder('parent').system('Be brief.')
      .startTurn('first question, with the word zebra').reply('first answer').endTurn()
      .startTurn('second question').reply('second answer').endTurn()
      .compact(1, 4, 'two questions were asked')
      .startTurn('third question').reply('third answer').endTurn()
    await app.store(parentLog.header, parentLog.events)
    const cut = parentLog.events.findIndex(event => event.type === 'turn/end')
    const child = parentLog.fork('child', cut).startTurn('a different second question').reply('another answer').endTurn()
    await app.store(child.header, child.events)
    cookie = await signIn(app)
  })
  afterAll(() => app.stop())

  it('L-163 the token is swapped once for an HttpOnly SameSite=Strict cookie and a redirect to the clean address', async () => {
    const fresh = await startViewer()
    try {
      expect(fresh.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{43}$/)
      const first = await fetch(fresh.url.replace('/?', '/session/x?'), { redirect: 'manual' })
      expect(first.status).toBe(303)
      expect(first.headers.get('location')).toBe('/session/x')
      expect(first.headers.get('set-cookie')).toMatch(/^logbook_viewer=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=\/$/)
      expect(fresh.viewer.url()).toBe(`${fresh.base}/`)
      const again = await fetch(fresh.url, { redirect: 'manual' })
      expect(again.status).toBe(403)
      expect(await again.text()).toContain('wrong or used token')
    } finally {
      await fresh.stop()
    }
  })

  it('L-163 a missing or wrong cookie or token, or a foreign Host header, is 403', async () => {
    expect((await fetch(`${app.base}/`)).status).toBe(403)
    expect((await fetch(`${app.base}/?token=nope`)).status).toBe(403)
    expect((await get(app, 'logbook_viewer=forged', '/')).status).toBe(403)
    const page = await get(app, '', '/session/parent')
    expect(page.status).toBe(403)
    expect(page.text).not.toContain('first question')
    const port = new URL(app.base).port
    expect(await rawGet(app, '/', { cookie, host: `evil.example:${port}` })).toBe(403)
    expect(await rawGet(app, '/', { cookie, host: `localhost:${port}` })).toBe(200)
    // The assets hold no session data and load without the cookie; so does the browser's favicon request (empty).
    expect((await fetch(`${app.base}/assets/viewer.css`)).status).toBe(200)
    expect((await fetch(`${app.base}/favicon.ico`)).status).toBe(204)
  })

  it('L-164 an unknown session id is a 404 page; an unknown path 404; a write method 405', async () => {
    const missing = await get(app, cookie, '/session/no-such-session')
    expect(missing.status).toBe(404)
    expect(missing.text).toContain('No stored session has the id &quot;no-such-session&quot;.')
    expect((await get(app, cookie, '/session/bad%2Fid')).status).toBe(404)
    expect((await get(app, cookie, '/nothing-here')).status).toBe(404)
    const post = await fetch(`${app.base}/`, { method: 'POST', headers: { cookie } })
    expect(post.status).toBe(405)
  })

  it('L-164 every page forbids loading anything but its own assets', async () => {
    const page = await get(app, cookie, '/')
    expect(page.headers.get('content-security-policy')).toBe("default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
    expect(page.headers.get('x-content-type-options')).toBe('nosniff')
  })

  it('L-165 the list shows title, updated, events, turns, tokens and parent, latest first', async () => {
    const page = await get(app, cookie, '/')
    expect(page.status).toBe(200)
    const rows = [...page.text.matchAll(/<tr data-session="([^"]+)">([\s\S]*?)<\/tr>/g)].map(match => [match[1], match[2]!.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim()])
    expect(rows.map(row => row[0])).toEqual(['child', 'parent'])
    expect(rows[0]![1]).toMatch(/^first question, with the word zebra child \d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ 22 2 220 parent$/)
    expect(rows[1]![1]).toMatch(/^first question, with the word zebra parent \d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ 35 3 330 –$/)
  })

  it('L-165 search shows the hits with their marks, and a query the index rejects as one message, never a stack', async () => {
    const found = await get(app, cookie, '/search?q=zebra')
    expect(found.status).toBe(200)
    const hits = [...found.text.matchAll(/<li data-session="([^"]+)" data-seq="(\d+)">([\s\S]*?)<\/li>/g)]
    expect(hits.map(hit => hit[1]).sort()).toEqual(['child', 'parent'])
    const [, , seq, parentHit] = hits.find(hit => hit[1] === 'parent')!
    expect(parentHit).toContain('<mark>zebra</mark>')
    expect(parentHit).toContain(`href="/session/parent?at=${seq}&amp;view=log#e${seq}"`)
    expect(parentHit).toContain('only in the log')
    const rejected = await get(app, cookie, `/search?q=${encodeURIComponent('zebra AND')}&fts=1`)
    expect(rejected.status).toBe(400)
    expect(rejected.text).toContain('<p class="notice error" role="alert">invalid search query &quot;zebra AND&quot;: fts5: syntax error near &quot;&quot;</p>')
    expect(rejected.text).not.toMatch(/at .*\.ts:\d+/)
    expect((await get(app, cookie, '/search?q=')).text).toContain('Type a word or phrase to search for.')
  })

  it('L-166 a session page shows the page of turns asked for, both views, the fork tree with its cuts', async () => {
    const last = await get(app, cookie, '/session/parent')
    expect(last.status).toBe(200)
    expect(last.text).toContain('id="turn-3"')
    expect(last.text).not.toContain('id="turn-1"')
    expect(last.text).toContain('page 2 of 2 (3 turns)')
    const first = await get(app, cookie, '/session/parent?at=2')
    expect(first.text).toContain('<div class="msg user" id="e2" data-seq="2">')
    expect(first.text).toContain('not on the surface — compacted')
    const cut = parentLog.events.findIndex(event => event.type === 'turn/end')
    expect(first.text).toContain(`Forked here (after seq ${cut}) into <a class="session-link" href="/session/child?at=${cut}`.slice(0, 40))
    expect(first.text).toMatch(/<li class="child"><a class="session-link" href="\/session\/child">child<\/a> <span class="meta">cut after seq \d+<\/span>/)
    const child = await get(app, cookie, '/session/child?page=1&view=surface')
    expect(child.text).toMatch(/Parent: <a class="session-link" href="\/session\/parent\?at=\d+&amp;view=log#e\d+">parent<\/a>/)
    expect(child.text).toContain('<input type="radio" name="view" id="view-surface" class="view-switch" value="surface" checked>')
  })

  it('L-166 an open turn whose writer stopped is shown as such, never closed; one whose writer holds the session runs', async () => {
    const log = new LogBuilder('open').startTurn('still going?').reply('working', { finish: false })
    await app.store(log.header, log.events)
    const stopped = await get(app, cookie, '/session/open')
    expect(stopped.text).toContain('turn 1 is open; its writer stopped')
    expect(stopped.text).toContain('<span class="badge stopped" title="No turn/end is stored and no process holds the session: a resume closes the turn as interrupted">open — its writer stopped</span>')
    expect(stopped.text).not.toContain('TOOL_OUTCOME_UNKNOWN')
    expect(stopped.text).not.toContain('streaming…')
    const writer = await app.persistence.open('open', 'write')
    try {
      const running = await get(app, cookie, '/session/open')
      expect(running.text).toContain('turn 1 running')
      expect(running.text).toContain('<span class="badge running">streaming…</span>')
    } finally {
      await writer.close()
    }
  })

  it('L-168 browsing writes nothing: every file of the store keeps its bytes', async () => {
    const before = fingerprints(app.root)
    for (const path of ['/', '/session/parent', '/session/parent?page=1', '/session/child', '/session/child?view=surface', '/search?q=zebra', '/session/none']) {
      await get(app, cookie, path)
    }
    expect(fingerprints(app.root)).toEqual(before)
  })
})
