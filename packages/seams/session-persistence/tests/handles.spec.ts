import type { Context, Fiber } from '@deepseek-ai/cordis'
import type { SessionEvent, SessionId } from '@logbook/session'
import type { SessionHandle } from '../src/types.ts'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import MemorySessionPersistence from '../src/index.ts'
import { dropMemoryStore, memoryStore } from '../src/memory-backend.ts'
import { header, makeApp, turn } from './helpers.ts'

let app: Context
let fiber: Fiber
let storeName: string

beforeEach(async () => {
  storeName = `handles-${Math.random()}`
  ;({ app } = await makeApp())
  fiber = await app.plugin(MemorySessionPersistence, { storeName })
})

afterEach(async () => {
  await fiber.dispose()
  dropMemoryStore(storeName)
})

const errorOf = (promise: Promise<unknown>) => promise.then(() => undefined, (e: unknown) => e)
const persistence = () => app.sessionPersistence

describe('handles (02 §1.2)', () => {
  it('validates appended events synchronously and names index, seq and type', async () => {
    const handle = await persistence().create(header('a1'))
    const bad = [turn(0, 1)[0]!, { type: 'turn/start', seq: 1, time: 1, data: { turn: 10n } }] as unknown as SessionEvent[]
    const error = await errorOf(handle.append(bad))
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', sessionId: 'a1' })
    expect((error as Error).message).toMatch(/^session "a1": event at index 1 \(seq 1, type "turn\/start"\): /)
    const unknown = [{ type: 'plugin/x', seq: 0, time: 1, data: {} }] as unknown as SessionEvent[]
    expect(await errorOf(handle.append(unknown))).toMatchObject({ code: 'INVALID_ARGUMENT' })
    const chunkRowTag = [{ type: 'text-chunks', seq: 0, time: 1, data: {} }] as unknown as SessionEvent[]
    expect(await errorOf(handle.append(chunkRowTag))).toMatchObject({ code: 'INVALID_ARGUMENT' })
    expect(memoryStore(storeName).sessions.has('a1')).toBe(false)
  })

  it('rejects a seq mismatch with SESSION_CONFLICT details and stores nothing of the batch', async () => {
    const handle = await persistence().create(header('a2'))
    await handle.append(turn(0, 1).slice(0, 2))
    const events = turn(0, 1)
    const gap = [events[2]!, { ...events[3]!, seq: 4 }] as SessionEvent[]
    expect(await errorOf(handle.append(gap))).toMatchObject({ code: 'SESSION_CONFLICT', details: { index: 1, expected: 3, actual: 4 } })
    expect(handle.nextSeq).toBe(2)
    expect(await errorOf(handle.append(events.slice(0, 2)))).toMatchObject({ code: 'SESSION_CONFLICT', details: { index: 0, expected: 2, actual: 0 } })
  })

  it('serialises events before the first await and runs un-awaited appends in call order', async () => {
    const handle = await persistence().create(header('a3'))
    const events = turn(0, 1).map(e => structuredClone(e)) as { data: { turn: number } }[]
    const first = handle.append(events.slice(0, 2) as unknown as SessionEvent[])
    const second = handle.append(events.slice(2) as unknown as SessionEvent[])
    events[0]!.data.turn = 99
    const conflicting = handle.append(events.slice(2) as unknown as SessionEvent[])
    expect((await first).nextSeq).toBe(2)
    expect((await second).nextSeq).toBe(4)
    expect(await errorOf(conflicting)).toMatchObject({ code: 'SESSION_CONFLICT' })
    expect((await persistence().readFrom('a3', 0))[0]!.data).toEqual({ turn: 1 })
  })

  it('append([]) resolves without I/O; read-only, closed and handed-off handles refuse', async () => {
    const handle = await persistence().create(header('a4'))
    expect(await handle.append([])).toEqual({ nextSeq: 0, revision: null })
    await handle.close()
    expect(memoryStore(storeName).sessions.has('a4')).toBe(false)
    expect(await errorOf(persistence().open('a4', 'read'))).toMatchObject({ code: 'SESSION_NOT_FOUND', message: 'session "a4" not found' })
    const writer = await persistence().create(header('a4'))
    await writer.append(turn(0, 1))
    await writer.close()
    await writer.close()
    expect(await errorOf(writer.read())).toMatchObject({ code: 'SESSION_HANDLE_CLOSED' })
    const reader = await persistence().open('a4', 'read')
    expect(await errorOf(reader.append(turn(4, 2)))).toMatchObject({ code: 'HANDLE_READ_ONLY' })
    expect(() => reader.handOff()).toThrow(expect.objectContaining({ code: 'HANDLE_READ_ONLY' }))
    expect(reader.eventState).toBe('shared-frozen')
    expect(Object.isFrozen((await reader.read())[0])).toBe(true)
  })

  it('a pre-aborted signal rejects every method with exactly its reason', async () => {
    const reason = new Error('stop')
    const controller = new AbortController()
    controller.abort(reason)
    const signal = controller.signal
    const p = persistence()
    for (const call of [
      () => p.open('x', 'write', { signal }), () => p.create(header('x'), { signal }), () => p.list({}, { signal }),
      () => p.inspect('x', { signal }), () => p.readFrom('x', 0, { signal }), () => p.locate('x', { signal }),
      () => p.delete('x', { confirm: 'delete-session', sessionId: 'x', revision: 'r' }, { signal }),
      () => p.breakLock('x', { ownerId: null, confirm: 'break-lock' }, { signal }),
      () => p.readProjectionCheckpoint('x', { signal }),
    ]) {
      expect(await errorOf(call())).toBe(reason)
    }
  })

  it('invalid ids are INVALID_ARGUMENT everywhere', async () => {
    for (const id of ['', '.x', 'a/b', 'a'.repeat(129)]) {
      expect(await errorOf(persistence().open(id, 'read'))).toMatchObject({ code: 'INVALID_ARGUMENT' })
      expect(await errorOf(persistence().create(header(id)))).toMatchObject({ code: 'INVALID_ARGUMENT' })
      expect(await errorOf(persistence().readFrom(id, 0))).toMatchObject({ code: 'INVALID_ARGUMENT' })
    }
  })
})

describe('ownership in one coordinator (02 §3.1, §3.5)', () => {
  it('two open(write) in one tick: one wins, the other SESSION_LOCKED in-process handle', async () => {
    const h = await persistence().create(header('o1'))
    await h.append(turn(0, 1))
    await h.close()
    const results = await Promise.allSettled([persistence().open('o1', 'write'), persistence().open('o1', 'write')])
    expect(results[0]!.status).toBe('fulfilled')
    expect(results[1]).toMatchObject({ status: 'rejected', reason: { code: 'SESSION_LOCKED', details: { holder: { scope: 'in-process', kind: 'handle' } } } })
    expect((await persistence().inspect('o1')).claim).toBe('this-process')
  })

  it('a live session holds its id: open(write) is SESSION_LOCKED live-session; a second live session cannot flush', async () => {
    const session = app.sessions.create('o2' as SessionId)
    session.append('turn/start', { turn: 1 })
    await app.sessions.flush(session)
    expect(await errorOf(persistence().open('o2', 'write'))).toMatchObject({ details: { holder: { kind: 'live-session' } } })
    const handle = await persistence().create(header('o3'))
    const other = app.sessions.create('o3' as SessionId)
    other.append('turn/start', { turn: 1 })
    expect(await errorOf(app.sessions.flush(other))).toMatchObject({ code: 'SESSION_LOCKED', details: { holder: { kind: 'handle' } } })
    await handle.append(turn(0, 1))
    expect(handle.nextSeq).toBe(4)
  })

  it('handOff then close before publication frees the id; a differing live log makes the flush SESSION_CONFLICT', async () => {
    const h = await persistence().create(header('o4'))
    await h.append(turn(0, 1))
    h.handOff()
    await h.close()
    const again = await persistence().open('o4', 'write')
    again.handOff()
    const session = app.sessions.prepare('o4' as SessionId, {
      seed: [...turn(0, 1).slice(0, 3), { ...turn(0, 1)[3]!, data: { turn: 1, reason: { kind: 'aborted', reason: { kind: 'user' } } } }] as SessionEvent[],
      meta: again.header, inheritedEventCount: 0, eventState: 'detached',
    })
    app.sessions.enter(session)
    app.sessions.announce(session)
    expect(await errorOf(app.sessions.flush(session))).toMatchObject({ code: 'SESSION_CONFLICT' })
  })

  it('delete needs the exact confirmation and the current revision; breakLock needs its confirm', async () => {
    const h = await persistence().create(header('d1'))
    await h.append(turn(0, 1))
    const revision = h.revision!
    expect(await errorOf(persistence().delete('d1', { confirm: 'delete-session', sessionId: 'd1', revision }))).toMatchObject({ code: 'SESSION_LOCKED' })
    await h.close()
    for (const bad of [{ confirm: 'delete', sessionId: 'd1', revision }, { confirm: 'delete-session', sessionId: 'd2', revision }, { confirm: 'delete-session', sessionId: 'd1' }]) {
      expect(await errorOf(persistence().delete('d1', bad as never))).toMatchObject({ code: 'DELETE_NOT_CONFIRMED' })
    }
    expect(await errorOf(persistence().delete('d1', { confirm: 'delete-session', sessionId: 'd1', revision: 'stale' }))).toMatchObject({ code: 'SESSION_CONFLICT' })
    expect(await persistence().delete('d1', { confirm: 'delete-session', sessionId: 'd1', revision })).toEqual({ sessionId: 'd1' })
    expect(await errorOf(persistence().open('d1', 'read'))).toMatchObject({ code: 'SESSION_NOT_FOUND' })
    expect(memoryStore(storeName).locks.size).toBe(0)
    expect(await errorOf(persistence().breakLock('d1', { ownerId: null, confirm: 'yes' } as never))).toMatchObject({ code: 'INVALID_ARGUMENT' })
    await persistence().breakLock('d1', { ownerId: null, confirm: 'break-lock' })
  })
})

describe('projection checkpoints (02 §1.6)', () => {
  const cp = (seq: number) => ({ sessionId: 'c1', seq, anchor: { time: 2000, type: 'turn/end' }, rows: { stats: { stateVersion: 1, state: {} } } })

  it('requires a claim and a seq below the durable cursor; a cut at or below it removes it', async () => {
    const h = await persistence().create(header('c1'))
    expect(await errorOf(persistence().writeProjectionCheckpoint('c1', cp(0)))).toMatchObject({ code: 'CHECKPOINT_AHEAD' })
    await h.append(turn(0, 1))
    expect(await errorOf(persistence().writeProjectionCheckpoint('c1', { ...cp(3), sessionId: 'c2' }))).toMatchObject({ code: 'INVALID_ARGUMENT' })
    expect(await errorOf(persistence().writeProjectionCheckpoint('c1', cp(4)))).toMatchObject({ code: 'CHECKPOINT_AHEAD' })
    await persistence().writeProjectionCheckpoint('c1', cp(3))
    expect(await persistence().readProjectionCheckpoint('c1')).toEqual(cp(3))
    await h.close()
    expect(await errorOf(persistence().writeProjectionCheckpoint('c1', cp(3)))).toMatchObject({ code: 'SESSION_LOCKED' })
    const { memoryDamage } = await import('./memory-damage.ts')
    memoryDamage(storeName).tearLastRecord('c1', 3)
    expect(await persistence().readProjectionCheckpoint('c1')).toEqual(cp(3)) // the memory cursor still counts the torn record
    const w = await persistence().open('c1', 'write')
    expect(w.nextSeq).toBe(3)
    expect(await persistence().readProjectionCheckpoint('c1')).toBeUndefined()
    await w.close()
  })
})

describe('list (02 §1.3)', () => {
  it('pages newest first with a cursor bound to the filters', async () => {
    for (const [id, time] of [['9', 5], ['B', 5], ['a', 5], ['a-b', 7], ['a.b', 5], ['aB', 5], ['a_b', 5]] as const) {
      const h = await persistence().create(header(id, { cwd: '/w' }))
      await h.append([{ type: 'turn/start', seq: 0, time, data: { turn: 1 } } as SessionEvent])
      await h.close()
    }
    const first = await persistence().list({ limit: 3, cwd: '/w' })
    expect(first.items.map(i => i.id)).toEqual(['a-b', '9', 'B'])
    const second = await persistence().list({ limit: 3, cwd: '/w', cursor: first.nextCursor! })
    expect(second.items.map(i => i.id)).toEqual(['a', 'a.b', 'aB'])
    const third = await persistence().list({ limit: 3, cwd: '/w', cursor: second.nextCursor! })
    expect(third).toEqual({ items: [expect.objectContaining({ id: 'a_b' })], nextCursor: null, problems: [] })
    expect(await errorOf(persistence().list({ limit: 3, cursor: first.nextCursor! }))).toMatchObject({ code: 'INVALID_ARGUMENT' })
    for (const limit of [0, 501, 1.5]) expect(await errorOf(persistence().list({ limit }))).toMatchObject({ code: 'INVALID_ARGUMENT' })
    expect(await errorOf(persistence().list({ cursor: 'garbage' }))).toMatchObject({ code: 'INVALID_ARGUMENT' })
    expect((await persistence().list({ updatedAfter: 5 })).items.map(i => i.id)).toEqual(['a-b'])
    expect((await persistence().list({ parentSession: null, cwd: '/x' })).items).toEqual([])
  })
})

describe('append serialises before the first await (02 §1.2)', () => {
  it('P-014 seqs, the lineage marker and the last event are captured at call time: later mutation changes nothing', async () => {
    const handle = await persistence().create(header('m1', { parentSession: 'p' as never, isSeeded: true, seedLength: 1 }))
    const events = [
      structuredClone(turn(0, 1)[0]!),
      { type: 'session/end-seed', seq: 1, time: 2000, data: { inherited: true } },
      structuredClone(turn(1, 1)[1]!),
    ] as unknown as { seq: number; type: string; data: Record<string, unknown> }[]
    const pending = handle.append(events as unknown as SessionEvent[])
    events[0]!.seq = 7
    events[1]!.type = 'turn/start'
    events[2]!.data['step'] = 9
    expect(await pending).toMatchObject({ nextSeq: 3 })
    expect((await persistence().readFrom('m1', 0)).map(e => [e.seq, e.type])).toEqual([
      [0, 'turn/start'], [1, 'session/end-seed'], [2, 'step/start'],
    ])
    // The adoption check compares the live log with what was stored, not with the mutated object.
    handOffAndPublish(handle, await persistence().readFrom('m1', 0))
    await app.sessions.flush(app.sessions.get('m1' as SessionId)!)
    expect((await persistence().readFrom('m1', 0)).map(e => e.type).at(-1)).toBe('session/end-seed')
  })
})

/** §4.3 step 6: hand the handle off, then enter and announce a session restored from `events`. */
function handOffAndPublish(handle: SessionHandle, events: readonly SessionEvent[]): void {
  handle.handOff()
  const session = app.sessions.prepare('m1' as SessionId, {
    seed: events, meta: handle.header as never, inheritedEventCount: handle.inheritedEventCount, eventState: 'shared-frozen',
  })
  app.sessions.enter(session)
  app.sessions.announce(session)
}

describe('messages and events (02 §1.7, §1.8)', () => {
  it('every message about a session starts with session "<id>": (not-found and format messages are exact instead)', async () => {
    const p = persistence()
    const h = await p.create(header('e1'))
    await h.append(turn(0, 1))
    const errors = [
      await errorOf(p.open('e1', 'write')),
      await errorOf(h.append(turn(0, 1))),
      await errorOf(h.read(-1)),
      await errorOf(p.writeProjectionCheckpoint('e1', { sessionId: 'e1', seq: 4, anchor: { time: 1, type: 'turn/end' }, rows: {} })),
      await errorOf(p.delete('e1', { confirm: 'delete-session', sessionId: 'e1' } as never)),
      await errorOf(p.writeProjectionCheckpoint('e2', { sessionId: 'e2', seq: 0, anchor: { time: 1, type: 'turn/end' }, rows: {} })),
    ]
    await h.close()
    errors.push(await errorOf(h.read()))
    const reader = await p.open('e1', 'read')
    errors.push(await errorOf(reader.append(turn(4, 2))))
    errors.push(await errorOf(p.create(header('e1'))))
    expect(errors.map(e => (e as { code: string }).code)).toEqual([
      'SESSION_LOCKED', 'SESSION_CONFLICT', 'INVALID_ARGUMENT', 'CHECKPOINT_AHEAD',
      'DELETE_NOT_CONFIRMED', 'SESSION_LOCKED', 'SESSION_HANDLE_CLOSED', 'HANDLE_READ_ONLY', 'SESSION_ALREADY_EXISTS',
    ])
    errors.forEach((e, i) => expect((e as Error).message, `error ${i}`).toMatch(/^session "e[12]": \S/))
  })

  it('a throwing or rejecting listener of a diagnostic event is contained: the commit stands and a warning is logged', async () => {
    const { app: other, logs } = await makeApp()
    other.on('persistence/committed', () => {
      throw new Error('listener bug')
    })
    other.on('persistence/committed', () => Promise.reject(new Error('async listener bug')) as never)
    const seen: number[] = []
    other.on('persistence/committed', event => void seen.push(event.toSeq))
    const otherFiber = await other.plugin(MemorySessionPersistence, {})
    const handle = await other.sessionPersistence.create(header('e3'))
    expect(await handle.append(turn(0, 1))).toMatchObject({ nextSeq: 4 })
    await new Promise(resolve => setImmediate(resolve))
    expect(seen).toEqual([4])
    const warnings = logs.filter(m => m.type === 'warn').map(m => String(m.args[0]))
    expect(warnings).toEqual(['persistence/committed listener threw: listener bug', 'persistence/committed listener rejected: async listener bug'])
    await handle.close()
    await otherFiber.dispose()
  })

  it('§3.5 a live session whose id another coordinator holds: init fails terminal SESSION_LOCKED (process), reported once', async () => {
    const held = await persistence().create(header('e4'))
    const { app: other, logs } = await makeApp()
    const failures: { terminal: boolean; error: unknown }[] = []
    other.on('persistence/write-failed', event => void failures.push(event))
    const otherFiber = await other.plugin(MemorySessionPersistence, { storeName })
    const session = other.sessions.create('e4' as SessionId)
    session.append('turn/start', { turn: 1 })
    const error = await errorOf(other.sessions.flush(session))
    expect(error).toMatchObject({ code: 'SESSION_LOCKED', details: { holder: { scope: 'process', pid: process.pid, sameHost: true } } })
    expect(await errorOf(other.sessions.flush(session))).toBe(error)
    expect(failures).toEqual([{ sessionId: 'e4', error, terminal: true, attempt: 1 }])
    expect(logs.filter(m => m.name === 'session-persistence' && m.type === 'error')).toHaveLength(1)
    await held.append(turn(0, 1))
    expect(held.nextSeq).toBe(4)
    await held.close()
    await otherFiber.dispose()
  })
})

describe('binding adopts a handed-off handle (02 §2.1 case 1)', () => {
  it('a create handle handed off before its first append: the binding materialises header and live events together', async () => {
    const handle = await persistence().create(header('b1', { cwd: '/w' }))
    handle.handOff()
    const session = app.sessions.prepare('b1' as SessionId, { meta: { createdAt: 1000, cwd: '/w' } })
    app.sessions.enter(session)
    app.sessions.announce(session)
    session.append('turn/start', { turn: 1 })
    await app.sessions.flush(session)
    const inspection = await persistence().inspect('b1')
    expect(inspection.header).toEqual(header('b1', { cwd: '/w' }))
    expect(inspection.events.map(e => e.type)).toEqual(['turn/start'])
    expect(inspection.claim).toBe('this-process')
    expect(await handle.close()).toBeUndefined() // adopted: a no-op
    expect((await persistence().inspect('b1')).claim).toBe('this-process')
  })

  it('a live header that differs from the handle\'s stored header makes the binding terminal SESSION_CONFLICT', async () => {
    const handle = await persistence().create(header('b2', { cwd: '/w' }))
    await handle.append(turn(0, 1))
    handle.handOff()
    const session = app.sessions.prepare('b2' as SessionId, {
      seed: await persistence().readFrom('b2', 0), meta: header('b2', { cwd: '/elsewhere' }), inheritedEventCount: 0, eventState: 'shared-frozen',
    })
    app.sessions.enter(session)
    app.sessions.announce(session)
    expect(await errorOf(app.sessions.flush(session))).toMatchObject({ code: 'SESSION_CONFLICT' })
    expect((await persistence().readFrom('b2', 0)).map(e => e.seq)).toEqual([0, 1, 2, 3])
  })
})
