/** The `./invariant` companion (02 §8, P-113 JSONL part): size and lock owner checked after every commit. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { SessionId } from '@logbook/session'
import * as invariant from '../src/invariant.ts'
import { hdr, turns } from './events.ts'
import { JsonlApp, tempRoot } from './mount.ts'

let root: string
let cleanup: () => Promise<void>
let app: JsonlApp

beforeEach(async () => {
  ;({ root, cleanup } = await tempRoot())
  app = await JsonlApp.start(root)
  await app.app.plugin(invariant)
})
afterEach(async () => {
  await app.stop()
  await cleanup()
})

describe('session-persistence-jsonl-invariant', () => {
  it('stays silent over materialise, append, live batches and a repair cut', async () => {
    const handle = await app.persistence.create(hdr('ok'))
    await handle.append(turns(1))
    await handle.append(turns(1, 6, 2))
    await handle.close()
    const session = app.sessions.create('live' as SessionId, { meta: { cwd: '/x' } })
    session.append('turn/start', { turn: 1 })
    await app.sessions.flush(session)
    session.append('turn/end', { turn: 1, reason: { kind: 'completed' } })
    await app.sessions.flush(session)
    expect(app.committed.length).toBeGreaterThanOrEqual(4)
    expect(app.errors).toEqual([])
  })

  it('P-113 a JSONL size mismatch or a lock naming another owner is logged as a violation', async () => {
    const handle = await app.persistence.create(hdr('bad'))
    const result = await handle.append(turns(1))
    const commit = app.committed.at(-1)!
    expect(invariant.checkCommit(root, commit)).toBeUndefined()
    app.app.emit('persistence/committed', { ...commit, physicalLength: commit.physicalLength + 1 })
    expect(app.errors.at(-1)).toMatch(/^session-persistence-jsonl-invariant: session "bad": file size \d+ ≠ committed physicalLength \d+$/)
    expect(invariant.checkCommit(root, { ...commit, ownerId: 'someone-else' })).toMatch(/lock names .*, not committing owner someone-else/)
    expect(result.nextSeq).toBe(6)
    await handle.close()
  })
})
