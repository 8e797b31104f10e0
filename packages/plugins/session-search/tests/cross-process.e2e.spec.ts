/**
 * F-020, F-021: sessions another process writes are found at query time (spec 04 §3.2): a new session, then a new
 * turn of it, read from its stored tail only; two processes indexing the same session into one index never store
 * its texts twice.
 */
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { Context } from '@deepseek-ai/cordis'
import SessionStore, { type SessionEvent } from '@logbook/session'
import type { OperationOptions } from '@logbook/session-persistence'
import JsonlSessionPersistence from '@logbook/session-persistence-jsonl'
import { afterEach, describe, expect, it } from 'vitest'
import SessionSearch from '../src/index.ts'
import { brief, tempDir } from './helpers.ts'

const run = promisify(execFile)
const writer = fileURLToPath(new URL('./child/writer.ts', import.meta.url))

/** Run the writer in a child process (same Node, sources through tsx). */
async function child(...args: string[]): Promise<void> {
  const { stdout } = await run(process.execPath, ['--conditions=source', '--import', 'tsx', writer, ...args], { cwd: fileURLToPath(new URL('..', import.meta.url)) })
  expect(stdout).toBe('done\n')
}

const stops: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop()
})

/** This process: the store, JSONL persistence recording the `fromSeq` of every `readFrom`, and the search plugin. */
async function parent(root: string, reads: number[]): Promise<Context> {
  class Counting extends JsonlSessionPersistence {
    override readFrom(id: string, fromSeq: number, opts?: OperationOptions): Promise<readonly SessionEvent[]> {
      reads.push(fromSeq)
      return super.readFrom(id, fromSeq, opts)
    }
  }
  const app = new Context()
  const store = await app.plugin(SessionStore)
  const persistence = await app.plugin(Counting, { root, durability: 'none' } as never)
  const search = await app.plugin(SessionSearch, { reconcileIntervalMs: 0 } as never)
  stops.push(async () => {
    await search.dispose()
    await persistence.dispose()
    await store.dispose()
  })
  return app
}

describe('sessions other processes write', () => {
  it('F-020 a new session is found at the next query; a new turn is read from the stored tail only', async () => {
    const root = join(tempDir(), 'store')
    const reads: number[] = []
    const app = await parent(root, reads)
    expect(await app.sessionSearch.query('albatross')).toEqual([])
    await child(root, 'create', 'remote', 'the albatross migration')
    expect(brief(await app.sessionSearch.query('albatross'))).toEqual(['remote@1 user surface'])
    expect(reads).toEqual([0])
    reads.length = 0
    await child(root, 'append', 'remote', 'now the pelican migration')
    expect(brief(await app.sessionSearch.query('pelican'))).toEqual(['remote@4 user surface'])
    // From the last indexed event (seq 2), to check it is unchanged — never from 0.
    expect(reads).toEqual([2])
    reads.length = 0
    expect(brief(await app.sessionSearch.query('migration')).sort()).toEqual(['remote@1 user surface', 'remote@4 user surface'])
    expect(reads).toEqual([])
  })

  it('F-021 a writer that indexes too and a reader catching up share one index without duplicates', async () => {
    const root = join(tempDir(), 'store')
    const app = await parent(root, [])
    await child(root, 'create', 'both', 'the cormorant report', '--search')
    expect(app.sessionSearch.counts()).toEqual({ sessions: 1, texts: 1 })
    expect(brief(await app.sessionSearch.query('cormorant'))).toEqual(['both@1 user surface'])
    await child(root, 'append', 'both', 'the cormorant appendix')
    expect(brief(await app.sessionSearch.query('cormorant')).sort()).toEqual(['both@1 user surface', 'both@4 user surface'])
    expect(app.sessionSearch.counts()).toEqual({ sessions: 1, texts: 2 })
  })
})
