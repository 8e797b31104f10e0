import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { LiveUpdate } from '../src/server/live.ts'
import { signIn, startViewer, type ViewerApp } from './app.ts'
import { appendFromAnotherProcess } from './child/spawn.ts'
import { LogBuilder } from './log.ts'

/** Reads server-sent events from `response` until `done` accepts one. */
async function until(response: Response, done: (event: string, data: string) => boolean): Promise<{ event: string; data: string }> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
  let buffer = ''
  for (;;) {
    const { value, done: ended } = await reader.read()
    if (ended) throw new Error('the stream ended')
    buffer += value
    let end: number
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end)
      buffer = buffer.slice(end + 2)
      const event = /^event: (.*)$/m.exec(block)?.[1]
      const data = /^data: (.*)$/m.exec(block)?.[1]
      if (event !== undefined && data !== undefined && done(event, data)) {
        await reader.cancel()
        return { event, data }
      }
    }
  }
}

describe('live pages', () => {
  let app: ViewerApp
  let cookie: string

  beforeAll(async () => {
    app = await startViewer({ config: { pollIntervalMs: 50 } })
    cookie = await signIn(app)
  })
  afterAll(() => app.stop())

  it('L-151 a session written by another process streams its new events to an open page', async () => {
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
