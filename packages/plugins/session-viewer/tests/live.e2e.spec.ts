import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { LiveUpdate } from '../src/server/live.ts'
import { signIn, startViewer, type ViewerApp } from './app.ts'
import { until } from './sse.ts'
import { appendFromAnotherProcess } from './child/spawn.ts'
import { LogBuilder } from './log.ts'

describe('live pages', () => {
  let app: ViewerApp
  let cookie: string

  beforeAll(async () => {
    app = await startViewer({ config: { pollIntervalMs: 50 } })
    cookie = await signIn(app)
  })
  afterAll(() => app.stop())

  it('L-166 a session written by another process streams its new events to an open page', async () => {
    const log = new LogBuilder('live').startTurn('first').reply('one').endTurn()
    await app.store(log.header, log.events)
    const page = await fetch(`${app.base}/session/live`, { headers: { cookie } })
    const html = await page.text()
    const after = Number(/data-next-seq="(\d+)"/.exec(html)![1])
    expect(after).toBe(log.events.length)
    const stream = await fetch(`${app.base}/session/live/live?after=${after}`, { headers: { cookie } })
    expect(stream.headers.get('content-type')).toBe('text/event-stream; charset=utf-8')
    log.startTurn('second, from elsewhere').reply('working', { finish: false })
    const written = appendFromAnotherProcess(app.root, 'live', log.events.slice(after))
    const { data } = await until(stream, event => event === 'update')
    await written
    const update = JSON.parse(data) as LiveUpdate
    expect(update.nextSeq).toBe(log.events.length)
    expect(update.log.map(piece => piece.id)).toEqual(['turn-2'])
    expect(update.log[0]!.html).toContain('second, from elsewhere')
    expect(update.log[0]!.html).toContain('<span class="badge running">streaming…</span>')
    expect(update.head).toContain('turn 2 running')
    expect(update.surface.map(piece => piece.html.includes('second, from elsewhere'))).toEqual([true])
  })
})
