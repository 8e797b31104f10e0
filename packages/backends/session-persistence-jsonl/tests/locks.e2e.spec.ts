/**
 * Lock files across real processes (02 §3.3): two writers, SIGKILL takeover (P-055 [J]), racing takers of one
 * dead lock (P-061 [J]) and a takeover under a live writer whose checks have reached their one-`fstat` form (P-160 [J]).
 */
import { readFile, stat, writeFile } from 'node:fs/promises'
import { hostname } from 'node:os'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { SessionHandle } from '@logbook/session-persistence'
import { encodeId } from '../src/layout.ts'
import { CTIME_SETTLED_MS } from '../src/session-lock.ts'
import { WriterChild } from './child/spawn.ts'
import { hdr, turns } from './events.ts'
import { JsonlApp, tempRoot } from './mount.ts'

let root: string
let cleanup: () => Promise<void>
const children: WriterChild[] = []
const apps: JsonlApp[] = []

beforeEach(async () => {
  ;({ root, cleanup } = await tempRoot())
})
afterEach(async () => {
  for (const child of children.splice(0)) await child.kill()
  for (const app of apps.splice(0).reverse()) await app.stop()
  await cleanup()
})

async function mount(): Promise<JsonlApp> {
  const app = await JsonlApp.start(root, { durability: 'fsync' })
  apps.push(app)
  return app
}

async function child(): Promise<WriterChild> {
  const c = await WriterChild.start(root)
  children.push(c)
  return c
}

const lockPath = (id: string): string => `${root}/.locks/${encodeId(id)}.lock`
const lockOwner = async (id: string): Promise<{ ownerId: string; pid: number }> => JSON.parse(await readFile(lockPath(id), 'utf8'))

async function seed(app: JsonlApp, id: string): Promise<string> {
  const handle = await app.persistence.create(hdr(id))
  await handle.append(turns(1))
  await handle.close()
  return (await app.persistence.locate(id)) as string
}

describe('two writer processes', () => {
  it('the second writer gets SESSION_LOCKED and writes nothing; after the first is killed it takes the lock over', async () => {
    const app = await mount()
    const file = await seed(app, 'two')
    const [a, b] = await Promise.all([child(), child()])
    expect(await a.request('open', 'two')).toMatchObject({ ok: true, value: { nextSeq: 6 } })
    const before = await readFile(file)
    const refused = await b.request('open', 'two')
    expect(refused).toMatchObject({
      ok: false,
      error: { code: 'SESSION_LOCKED', details: { holder: { scope: 'process', pid: a.pid, host: hostname(), sameHost: true } } },
    })
    expect(await readFile(file)).toEqual(before)
    expect((await lockOwner('two')).pid).toBe(a.pid)
    expect(await a.request('append', 'two', turns(1, 6, 2))).toMatchObject({ ok: true, value: { nextSeq: 12 } })
    await a.kill()
    expect(await b.request('open', 'two')).toMatchObject({ ok: true, value: { nextSeq: 12 } })
    expect((await lockOwner('two')).pid).toBe(b.pid)
    expect(await b.request('append', 'two', turns(1, 12, 3))).toMatchObject({ ok: true, value: { nextSeq: 18 } })
    expect(await (await app.persistence.open('two', 'read')).read()).toEqual(turns(3))
  })

  it('P-055 child SIGKILLed while holding → the parent takes over; the lock file names the parent’s owner id', async () => {
    const app = await mount()
    await seed(app, 'p55')
    const c = await child()
    expect(await c.request('open', 'p55')).toMatchObject({ ok: true })
    await expect(app.persistence.open('p55', 'write')).rejects.toMatchObject({ code: 'SESSION_LOCKED', details: { holder: { pid: c.pid } } })
    await c.kill()
    const claimed: string[] = []
    app.app.on('persistence/claimed', (event) => { claimed.push(event.ownerId) })
    const handle: SessionHandle = await app.persistence.open('p55', 'write')
    expect(claimed).toHaveLength(1)
    expect(await lockOwner('p55')).toMatchObject({ ownerId: claimed[0], pid: process.pid })
    await handle.close()
  })
})

describe('P-061 racing takers', () => {
  it('P-061 two takers race for one dead lock, 100 rounds → never two holders', async () => {
    const [first, second] = [await mount(), await mount()]
    await seed(first, 'race')
    const dead = { v: 1, sessionId: 'race', pid: 2 ** 22 + 4321, host: hostname(), processStart: null, acquiredAt: 1 }
    for (let round = 0; round < 100; round++) {
      await writeFile(lockPath('race'), JSON.stringify({ ...dead, ownerId: `dead-${round}` }))
      const results = await Promise.allSettled([first.persistence.open('race', 'write'), second.persistence.open('race', 'write')])
      const winners = results.filter((r): r is PromiseFulfilledResult<SessionHandle> => r.status === 'fulfilled')
      const losers = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected')
      expect(winners, `round ${round}`).toHaveLength(1)
      expect(losers[0]?.reason, `round ${round}`).toMatchObject({ code: 'SESSION_LOCKED' })
      expect((await lockOwner('race')).pid).toBe(process.pid)
      await winners[0]!.value.close()
    }
  })
})

describe('P-160 a takeover under a live writer', () => {
  it('P-160 another process breaks the lock and takes it while the writer checks with one fstat → the writer\'s next append is refused, nothing of it lands', async () => {
    const app = await mount()
    const file = await seed(app, 'tk')
    const a = await child()
    expect(await a.request('open', 'tk')).toMatchObject({ ok: true, value: { nextSeq: 6 } })
    // Past the settling time, so the next append's full check makes the lock's change time trusted.
    const settleUntil = (await stat(lockPath('tk'))).ctimeMs + CTIME_SETTLED_MS.wholeSecond
    while (Date.now() < settleUntil) await new Promise(resolve => setTimeout(resolve, 25))
    expect(await a.request('append', 'tk', turns(1, 6, 2))).toMatchObject({ ok: true, value: { nextSeq: 12 } })
    expect(await a.request('append', 'tk', turns(1, 12, 3))).toMatchObject({ ok: true, value: { nextSeq: 18 } })
    const holder = await lockOwner('tk')
    expect(holder.pid).toBe(a.pid)

    await app.persistence.breakLock('tk', { ownerId: (holder as { ownerId: string }).ownerId, confirm: 'break-lock' })
    const taker = await app.persistence.open('tk', 'write')
    expect((await lockOwner('tk')).pid).toBe(process.pid)
    await taker.append(turns(1, 18, 4))
    const afterTakeover = await readFile(file)

    const refused = await a.request('append', 'tk', turns(1, 18, 5))
    expect(refused).toMatchObject({ ok: false, error: { code: 'SESSION_LOCKED', details: { lost: true } } })
    expect(await readFile(file)).toEqual(afterTakeover)
    await taker.close()
    expect(await (await app.persistence.open('tk', 'read')).read()).toEqual(turns(4))
  })
})
