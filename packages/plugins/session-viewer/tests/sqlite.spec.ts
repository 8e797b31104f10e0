import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { get, signIn, startViewer, type ViewerApp } from './app.ts'
import { LogBuilder } from './log.ts'
import { until } from './sse.ts'

describe('the viewer on a SQLite store', () => {
  let app: ViewerApp
  let cookie: string
  const log = new LogBuilder('db-session').startTurn('stored in SQLite').reply('rows, not lines').endTurn()

  beforeAll(async () => {
    app = await startViewer({ backend: 'sqlite', config: { pollIntervalMs: 50 } })
    await app.store(log.header, log.events)
    cookie = await signIn(app)
  })
  afterAll(() => app.stop())

  it('L-168 browsing leaves the database file byte-identical', async () => {
    const file = join(app.root, 'logbook.sqlite')
    const digest = (): string => createHash('sha256').update(readFileSync(file)).digest('hex')
    const before = digest()
    for (const path of ['/', '/session/db-session', '/session/db-session?view=surface', '/session/nope']) await get(app, cookie, path)
    expect(digest()).toBe(before)
  })

  it('L-166 a page of a SQLite session gets the turn appended after it was rendered', async () => {
    const page = await get(app, cookie, '/session/db-session')
    expect(page.text).toContain('rows, not lines')
    const after = Number(/data-next-seq="(\d+)"/.exec(page.text)![1])
    const stream = await fetch(`${app.base}/session/db-session/live?after=${after}`, { headers: { cookie } })
    log.startTurn('a second turn').reply('more rows').endTurn()
    const handle = await app.persistence.open('db-session', 'write')
    await handle.append(log.events.slice(after))
    await handle.close()
    const { data } = await until(stream, event => event === 'update')
    expect(data).toContain('a second turn')
  })
})
