import { type Context, Service } from '@deepseek-ai/cordis'
import type { JsonValue, SessionEvent } from '@logbook/session'
import MemorySessionPersistence, {
  type OpenMode, type OperationOptions, type ProjectionCheckpoint, type SessionHandle,
} from '@logbook/session-persistence'
import { describe, expect, it } from 'vitest'
import {
  appendTitle, foldProjection, type ProjectionDefinition, statsProjection, titleProjection, todosProjection,
} from '../src/index.ts'
import { makeApp, mark, settle, sid, turn, unitM } from './helpers.ts'

interface Spy {
  reads: [string, number][]
  checkpointReads: number
  writes: number
  opens: string[]
}

/** The memory backend with its read paths and checkpoint writes counted (an ordinary plugin). */
function spying(spy: Spy) {
  return class SpyingPersistence extends MemorySessionPersistence {
    override open(id: string, mode: OpenMode, opts?: OperationOptions): Promise<SessionHandle> {
      spy.opens.push(`${id}:${mode}`)
      return super.open(id, mode, opts)
    }

    override readFrom(id: string, fromSeq: number, opts?: OperationOptions): Promise<readonly SessionEvent[]> {
      spy.reads.push([id, fromSeq])
      return super.readFrom(id, fromSeq, opts)
    }

    override readProjectionCheckpoint(id: string, opts?: OperationOptions): Promise<ProjectionCheckpoint | undefined> {
      spy.checkpointReads += 1
      return super.readProjectionCheckpoint(id, opts)
    }

    override writeProjectionCheckpoint(id: string, cp: ProjectionCheckpoint, opts?: OperationOptions): Promise<void> {
      spy.writes += 1
      return super.writeProjectionCheckpoint(id, cp, opts)
    }
  }
}

/**
 * Store session `s` with events 0..15 in the memory store `storeName` and a checkpoint at seq 10; `edit` may change
 * the checkpoint before it is written. Returns the stored events.
 */
async function stored(storeName: string, edit: (cp: ProjectionCheckpoint) => ProjectionCheckpoint = cp => cp): Promise<readonly SessionEvent[]> {
  const { app } = await makeApp({ checkpoint: { enabled: false } }, async root => {
    await root.plugin(MemorySessionPersistence, { storeName })
  })
  app.sessionProjections.register(unitM())
  const s = app.sessions.create(sid('s'))
  turn(s, 1, ['c1'])
  s.append('todo/write', { todos: [{ content: 'first', status: 'pending' }] })
  mark(s)
  mark(s)
  await app.sessions.flush(s)
  const cp = app.sessionProjections.checkpoint(s)!
  expect(cp.seq).toBe(10)
  await app.sessionPersistence.writeProjectionCheckpoint('s', edit(cp as ProjectionCheckpoint))
  appendTitle(s, 'Named')
  mark(s)
  s.append('todo/write', { todos: [{ content: 'first', status: 'completed' }] })
  mark(s)
  mark(s)
  await app.sessions.flush(s)
  expect(s.seq).toBe(16)
  return s.events
}

/** A second app reading the same store, with the built-ins, unit M and `extra` units. */
async function reader(storeName: string, extra: ProjectionDefinition[] = []): Promise<{ app: Context; spy: Spy }> {
  const spy: Spy = { reads: [], checkpointReads: 0, writes: 0, opens: [] }
  const { app } = await makeApp({}, async root => {
    await root.plugin(spying(spy), { storeName })
  })
  app.sessionProjections.register(unitM())
  for (const def of extra) app.sessionProjections.register(def)
  return { app, spy }
}

/** The views a full fold of `events` gives for the built-ins and unit M. */
function fullFold(events: readonly SessionEvent[], m: number = foldProjection(unitM(), events)): Record<string, unknown> {
  return {
    stats: foldProjection(statsProjection, events).totals,
    todos: foldProjection(todosProjection, events).todos,
    title: titleProjection.view!(foldProjection(titleProjection, events)),
    'test/m': m,
  }
}

let counter = 0
const storeNameFor = (name: string): string => `projection-cold-${name}-${++counter}`

describe('coldSnapshot (03 §1.2, §1.4 reading)', () => {
  it('L-022 checkpoint at 10, stored log 0..15 → reads from 10, asOfSeq 15, values equal a full fold; nothing written', async () => {
    const name = storeNameFor('l022')
    const events = await stored(name)
    const { app, spy } = await reader(name)
    let committed = 0
    app.on('persistence/committed', () => {
      committed += 1
    })
    const snap = await app.sessionProjections.coldSnapshot('s')
    expect(spy.reads).toEqual([['s', 10]])
    expect(snap).toEqual({ sessionId: 's', asOfSeq: 15, values: fullFold(events), faults: {} })
    expect(snap.values).toMatchObject({ title: 'Named', 'test/m': 5, todos: [{ content: 'first', status: 'completed' }] })
    await settle()
    expect(spy.writes).toBe(0)
    expect(committed).toBe(0)
    expect(spy.opens).toEqual([]) // read paths only: no handle, so no write ownership
  })

  it('L-023 a bumped stateVersion or a row failing stateSchema folds that unit from 0; the others use the checkpoint', async () => {
    // The stored row of test/m is off by 100, so a value built on it shows that the row was used.
    const name = storeNameFor('l023')
    const events = await stored(name, cp => ({
      ...cp, rows: { ...cp.rows, 'test/m': { stateVersion: 1, state: 100 }, 'test/v': { stateVersion: 1, state: 500 }, 'test/bad': { stateVersion: 1, state: 'x' } },
    }))
    const { app, spy } = await reader(name, [unitM('test/v', 2), unitM('test/bad')])
    const snap = await app.sessionProjections.coldSnapshot('s')
    expect(spy.reads).toEqual([['s', 10], ['s', 0]])
    expect(snap.asOfSeq).toBe(15)
    expect(snap.values).toEqual({ ...fullFold(events, 103), 'test/v': 5, 'test/bad': 5 })
  })

  it('L-023 built-in rows that only look close (a title without keys, stats without turnAt) fold from 0', async () => {
    const name = storeNameFor('l023-builtins')
    const events = await stored(name, cp => {
      const { turnAt: _turnAt, ...stats } = (cp.rows.stats as { state: { readonly [key: string]: JsonValue } }).state
      return { ...cp, rows: { ...cp.rows, title: { stateVersion: 1, state: {} }, stats: { stateVersion: 1, state: stats } } }
    })
    const { app, spy } = await reader(name)
    const snap = await app.sessionProjections.coldSnapshot('s')
    expect(spy.reads).toEqual([['s', 10], ['s', 0]])
    expect(snap).toEqual({ sessionId: 's', asOfSeq: 15, values: fullFold(events), faults: {} })
  })

  it('L-024 an anchor with another time or type, or a log ending before it, makes every unit fold from 0', async () => {
    for (const anchor of [{ time: 1, type: 'test/mark' }, { type: 'turn/end' }]) {
      const name = storeNameFor('l024')
      const events = await stored(name, cp => ({
        ...cp, anchor: { ...cp.anchor, ...anchor }, rows: { ...cp.rows, 'test/m': { stateVersion: 1, state: 100 } },
      }))
      const { app, spy } = await reader(name)
      const snap = await app.sessionProjections.coldSnapshot('s')
      expect(spy.reads).toEqual([['s', 10], ['s', 0]])
      expect(snap).toEqual({ sessionId: 's', asOfSeq: 15, values: fullFold(events), faults: {} })
    }
    // A checkpoint naming seq 20 of a 16-event log (a double serving both read paths).
    const name = storeNameFor('l024-short')
    const events = await stored(name)
    const reads: number[] = []
    class ShortLog extends Service {
      constructor(ctx: Context) {
        super(ctx, 'sessionPersistence')
      }

      async readProjectionCheckpoint(): Promise<ProjectionCheckpoint> {
        return { sessionId: 's', seq: 20, anchor: { time: 0, type: 'test/mark' }, rows: { 'test/m': { stateVersion: 1, state: 100 } } }
      }

      async readFrom(_id: string, fromSeq: number): Promise<readonly SessionEvent[]> {
        reads.push(fromSeq)
        return events.slice(fromSeq)
      }
    }
    const { app } = await makeApp({}, async root => {
      await root.plugin(ShortLog)
    })
    app.sessionProjections.register(unitM())
    const snap = await app.sessionProjections.coldSnapshot('s')
    expect(reads).toEqual([20, 0])
    expect(snap).toEqual({ sessionId: 's', asOfSeq: 15, values: fullFold(events), faults: {} })
  })

  it('L-025 coldSnapshot without persistence → PERSISTENCE_NOT_CONFIGURED; an unknown id → the persistence not-found error', async () => {
    const bare = await makeApp()
    await expect(bare.app.sessionProjections.coldSnapshot('s')).rejects.toMatchObject({
      name: 'ProjectionError', code: 'PERSISTENCE_NOT_CONFIGURED',
      message: 'cannot resume: session persistence is not configured (load a session-persistence backend)',
    })
    const { app } = await reader(storeNameFor('l025'))
    await expect(app.sessionProjections.coldSnapshot('nope')).rejects.toMatchObject({
      name: 'SessionPersistenceError', code: 'SESSION_NOT_FOUND', message: 'session "nope" not found',
    })
  })

  it('without a checkpoint every unit folds a full read; faults are reported; an aborted signal rejects with its reason', async () => {
    const name = storeNameFor('plain')
    const { app: writer } = await makeApp({ checkpoint: { enabled: false } }, async root => {
      await root.plugin(MemorySessionPersistence, { storeName: name })
    })
    const s = writer.sessions.create(sid('s'))
    turn(s, 1)
    await writer.sessions.flush(s)
    const { app, spy } = await reader(name, [{ ...unitM('test/fail'), apply: () => { throw new Error('cold boom') } }])
    const snap = await app.sessionProjections.coldSnapshot('s')
    expect(spy.reads).toEqual([['s', 0]])
    expect(snap).toEqual({
      sessionId: 's', asOfSeq: 5, values: fullFold(s.events),
      faults: { 'test/fail': { seq: 0, phase: 'apply', message: 'cold boom' } },
    })
    const controller = new AbortController()
    const reason = new Error('stop')
    controller.abort(reason)
    await expect(app.sessionProjections.coldSnapshot('s', { signal: controller.signal })).rejects.toBe(reason)
  })
})
