import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import type { SessionEvent } from '@logbook/session'
import type { OperationOptions } from '@logbook/session-persistence'
import JsonlSessionPersistence from '@logbook/session-persistence-jsonl'
import { afterEach, describe, expect, it } from 'vitest'
import { appendTitle } from '../src/index.ts'
import { makeApp, mark, nextCheckpoint, sid, turn, unitM } from './helpers.ts'

const roots: string[] = []

afterEach(async () => {
  for (const root of roots.splice(0)) await rm(root, { recursive: true, force: true })
})

/** The JSONL backend with the seek position of every `readFrom` recorded. */
function counting(reads: number[]) {
  return class CountingJsonl extends JsonlSessionPersistence {
    override readFrom(id: string, fromSeq: number, opts?: OperationOptions): Promise<readonly SessionEvent[]> {
      reads.push(fromSeq)
      return super.readFrom(id, fromSeq, opts)
    }
  }
}

async function jsonlApp(root: string, reads: number[] = []) {
  let fiber: { dispose(): Promise<void> } | undefined
  const env = await makeApp({}, async app => {
    fiber = await app.plugin(counting(reads), { root, durability: 'none' })
  })
  env.app.sessionProjections.register(unitM())
  return { ...env, dispose: () => fiber!.dispose() }
}

describe('projection checkpoints with the JSONL backend', () => {
  it('a turn/end writes projections.json beside the log; a fresh app’s coldSnapshot reads from it and equals the live snapshot', async () => {
    const root = await mkdtemp(join(tmpdir(), 'logbook-projection-'))
    roots.push(root)
    const first = await jsonlApp(root)
    const s = first.app.sessions.create(sid('s'))
    const written = nextCheckpoint(first.app)
    turn(s, 1, ['c1'])
    const cp = await written
    const location = await first.app.sessionPersistence.locate('s')
    const onDisk = JSON.parse(await readFile(join(dirname(location!), 'projections.json'), 'utf8')) as { seq: number; rows: Record<string, unknown> }
    expect(onDisk).toMatchObject({ sessionId: 's', seq: cp.seq, anchor: { type: 'turn/end' } })
    expect(Object.keys(onDisk.rows)).toEqual(['stats', 'todos', 'title', 'test/m'])
    expect(onDisk.rows.stats).toEqual({ stateVersion: 1, state: first.app.sessionProjections.stateOf(s, 'stats') })
    appendTitle(s, 'After the checkpoint')
    mark(s)
    await first.app.sessions.flush(s)
    const live = first.app.sessionProjections.snapshot(s)
    await first.dispose()

    const reads: number[] = []
    const second = await jsonlApp(root, reads)
    const cold = await second.app.sessionProjections.coldSnapshot('s')
    expect(reads).toEqual([cp.seq])
    expect(cold).toEqual(live)
    expect(cold.values).toMatchObject({ title: 'After the checkpoint', 'test/m': 1 })
    await second.dispose()
  })
})
