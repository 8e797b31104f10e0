import { Context } from '@deepseek-ai/cordis'
import { describe, expect, it } from 'vitest'
import { deferred } from '@logbook/test-kit'
import SessionStore, { Session } from '../src/index.ts'
import { appendAs, ev, expectError, makeApp, published, sid, thrown } from './harness.ts'

const tick = (): Promise<void> => new Promise(resolve => setImmediate(resolve))

/** Record every store event in `log` as `<event> <id>`. */
function recordAll(app: Context, log: string[]): void {
  app.on('session/created', session => { log.push(`created ${session.id}`) })
  app.on('session/event', (session, event) => { log.push(`event ${session.id} ${event.seq}`) })
  app.on('session/disposed', session => { log.push(`disposed ${session.id}`) })
}

describe('create, get and list', () => {
  it('S-088 create announces once with this bound; each append emits one session/event; get and list find it', async () => {
    const { app, store } = await makeApp()
    const seen: unknown[] = []
    app.on('session/created', function (this: Session, session) { seen.push(['created', this === session, session.id]) })
    app.on('session/event', function (this: Session, session, event) { seen.push(['event', this === session, event.seq]) })
    const s = store.create(sid('s'))
    s.append('turn/start', { turn: 1 })
    s.append('turn/end', { turn: 1, reason: { kind: 'completed' } })
    expect(seen).toEqual([['created', true, 's'], ['event', true, 0], ['event', true, 1]])
    expect(store.get(sid('s'))).toBe(s)
    expect(store.list()).toEqual([s])
  })

  it('S-089 create() mints a UUID and list() keeps entry order', async () => {
    const { store } = await makeApp()
    const minted = store.create()
    expect(minted.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
    const b = store.create(sid('b'))
    const a = store.create(sid('a'))
    expect(store.list()).toEqual([minted, b, a])
    expect(store.prepare().id).toMatch(/^[0-9a-f-]{36}$/)
  })

  it('S-090 create or prepare of a live id is SESSION_ALREADY_EXISTS', async () => {
    const { store } = await makeApp()
    store.create(sid('a'))
    expectError(() => store.create(sid('a')), 'SESSION_ALREADY_EXISTS', 'session "a" already exists')
    expectError(() => store.prepare(sid('a')), 'SESSION_ALREADY_EXISTS', 'session "a" already exists')
    expectError(() => store.prepare(sid('a/b')), 'INVALID_SESSION_ID', 'invalid session id "a/b"')
    expect(store.list()).toHaveLength(1)
  })

  it('meta becomes the header in SessionHeader field order; an unknown meta key is INVALID_HEADER', async () => {
    const { store } = await makeApp()
    const s = store.create(sid('m'), { meta: { agentPreset: 'x', cwd: '/w', createdAt: 7, origin: 'subagent', parentSession: sid('p') } })
    expect(Object.keys(s.header)).toEqual(['version', 'id', 'createdAt', 'cwd', 'parentSession', 'origin', 'agentPreset'])
    expect(s.header).toMatchObject({ version: 2, id: 'm', createdAt: 7 })
    expectError(() => store.create(sid('n'), { meta: { foo: 1 } as never }), 'INVALID_HEADER', 'session header has unknown field "foo"')
    expectError(() => store.create(sid('n'), { meta: { version: 2 } as never }), 'INVALID_HEADER', 'session header has unknown field "version"')
    expect(store.get(sid('n'))).toBeUndefined()
  })
})

describe('prepare, enter, announce and detach', () => {
  it('S-091 prepare registers nothing, enter is silent, announce emits, detach disposes once', async () => {
    const { app, store } = await makeApp()
    const log: string[] = []
    recordAll(app, log)
    const s = store.prepare(sid('s'))
    expect(store.get(sid('s'))).toBeUndefined()
    const detach = store.enter(s)
    expect([store.get(sid('s')), log]).toEqual([s, []])
    store.announce(s)
    expect(log).toEqual(['created s'])
    detach()
    detach()
    expect(log).toEqual(['created s', 'disposed s'])
    expect(store.list()).toEqual([])
  })

  it('S-092 an attached object cannot enter again, here or elsewhere, until it is detached', async () => {
    const { store } = await makeApp()
    const { store: other } = await makeApp()
    const s = store.prepare(sid('x'))
    const detach = store.enter(s)
    expectError(() => store.enter(s), 'ALREADY_ATTACHED', 'session "x" is already attached to a store')
    expectError(() => other.enter(s), 'ALREADY_ATTACHED', 'session "x" is already attached to a store')
    detach()
    other.enter(s)
    expect(other.get(sid('x'))).toBe(s)
    expect(store.get(sid('x'))).toBeUndefined()
  })

  it('S-093 an older prepared object whose id is now live cannot enter', async () => {
    const { store } = await makeApp()
    const older = store.prepare(sid('x'))
    store.create(sid('x'))
    expectError(() => store.enter(older), 'SESSION_ALREADY_EXISTS', 'session "x" already exists')
  })

  it('S-094 a stale detach does not remove a newer entry with the same id', async () => {
    const { store } = await makeApp()
    const first = store.prepare(sid('x'))
    const staleDetach = store.enter(first)
    staleDetach()
    const second = store.prepare(sid('x'))
    store.enter(second)
    staleDetach()
    expect(store.get(sid('x'))).toBe(second)
    expectError(() => store.enter(first), 'SESSION_ALREADY_EXISTS', 'session "x" already exists')
  })

  it('S-095 a repeated announce is ALREADY_ANNOUNCED; announcing a session never entered is SESSION_NOT_LIVE', async () => {
    const { store } = await makeApp()
    const s = store.create(sid('x'))
    expectError(() => store.announce(s), 'ALREADY_ANNOUNCED', 'session "x" was already announced')
    expectError(() => store.announce(store.prepare(sid('y'))), 'SESSION_NOT_LIVE', 'session "y" is not live in this store')
    expectError(() => store.announce(Session.create(sid('x'))), 'SESSION_NOT_LIVE', 'session "x" is not live in this store')
  })

  it('S-096 appends between enter and announce are not published and are caught up at session/created', async () => {
    const { app, store } = await makeApp()
    const log: string[] = []
    app.on('session/created', session => { log.push(`created with ${session.seq}`) })
    app.on('session/event', (_session, event) => { log.push(`event ${event.seq}`) })
    const s = store.prepare(sid('s'))
    store.enter(s)
    s.append('turn/start', { turn: 1 })
    s.append('step/start', { turn: 1, step: 1 })
    expect(log).toEqual([])
    store.announce(s)
    s.append('step/end', { turn: 1, step: 1 })
    expect(log).toEqual(['created with 2', 'event 2'])
  })

  it('S-097 a throwing created listener rolls the creation back', async () => {
    const { app, store } = await makeApp()
    const log: string[] = []
    const boom = new Error('created')
    let armed = true
    app.on('session/created', () => { if (armed) throw boom })
    recordAll(app, log)
    expect(thrown(() => store.create(sid('s')))).toBe(boom)
    expect(store.get(sid('s'))).toBeUndefined()
    expect(log).toEqual(['disposed s'])
    armed = false
    const s = store.create(sid('s'))
    expect(store.get(sid('s'))).toBe(s)
    expect(log).toEqual(['disposed s', 'created s'])
  })

  it('S-098 a created listener that rejects is logged and create succeeds', async () => {
    const { app, store, logs } = await makeApp()
    app.on('session/created', () => Promise.reject(new Error('later')))
    const s = store.create(sid('s'))
    await tick()
    expect(store.get(sid('s'))).toBe(s)
    expect(logs).toContain('session "s": session/created listener rejected: Error: later')
  })

  it('S-099 a detach inside a created listener runs after the last created listener, before announce returns', async () => {
    const { app, store } = await makeApp()
    const log: string[] = []
    const s = store.prepare(sid('s'))
    const detach = store.enter(s)
    app.on('session/created', () => { detach(); log.push(`first live=${store.get(sid('s')) === s}`) })
    app.on('session/created', () => { log.push(`second live=${store.get(sid('s')) === s}`) })
    app.on('session/disposed', () => { log.push('disposed') })
    store.announce(s)
    log.push('returned')
    expect(log).toEqual(['first live=true', 'second live=true', 'disposed', 'returned'])
    expect(store.get(sid('s'))).toBeUndefined()
  })

  it('S-100 a detach inside a session/event listener runs after the last listener, before append returns', async () => {
    const { app, store } = await makeApp()
    const log: string[] = []
    const s = store.prepare(sid('s'))
    const detach = store.enter(s)
    store.announce(s)
    app.on('session/event', () => { detach(); log.push('first') })
    app.on('session/event', () => { log.push(`second live=${store.get(sid('s')) === s}`) })
    app.on('session/disposed', () => { log.push('disposed') })
    s.append('turn/start', { turn: 1 })
    log.push('returned')
    expect(log).toEqual(['first', 'second live=true', 'disposed', 'returned'])
    s.append('turn/end', { turn: 1, reason: { kind: 'completed' } })
    expect(log).toHaveLength(4)
  })

  it('S-101 detaching an entry that was never announced emits nothing', async () => {
    const { app, store } = await makeApp()
    const log: string[] = []
    recordAll(app, log)
    const s = store.prepare(sid('s'))
    store.enter(s)()
    s.append('turn/start', { turn: 1 })
    expect(log).toEqual([])
    expect(store.get(sid('s'))).toBeUndefined()
  })

  it('S-102 disposing the creating fiber detaches the session; later appends commit unpublished', async () => {
    const { app, store } = await makeApp()
    const log: string[] = []
    recordAll(app, log)
    let s: Session | undefined
    const fiber = app.plugin({ inject: ['sessions'], apply: (ctx: Context) => { s = ctx.sessions.create(sid('s')) } })
    await fiber
    s!.append('turn/start', { turn: 1 })
    await fiber.dispose()
    expect(log).toEqual(['created s', 'event s 0', 'disposed s'])
    expect(store.get(sid('s'))).toBeUndefined()
    s!.append('turn/end', { turn: 1, reason: { kind: 'completed' } })
    expect([s!.seq, log.length]).toEqual([2, 3])
  })

  it('S-103 a throwing session/disposed listener is contained and the others run', async () => {
    const { app, store, logs } = await makeApp()
    const ran: string[] = []
    app.on('session/disposed', () => { ran.push('a'); throw new Error('gone') })
    app.on('session/disposed', () => { ran.push('b') })
    const s = store.prepare(sid('s'))
    const detach = store.enter(s)
    store.announce(s)
    detach()
    expect(ran).toEqual(['a', 'b'])
    expect(logs).toContain('session "s": session/disposed listener threw: Error: gone')
  })
})

describe('flush', () => {
  it('S-104 flush resolves false with no listeners and true once every listener has settled', async () => {
    const { app, store } = await makeApp()
    const s = store.create(sid('s'))
    expect(await store.flush(s)).toBe(false)
    const gates = [deferred(), deferred()]
    const settled: number[] = []
    app.on('session/flush', function (this: Session) { return gates[0]!.promise.then(() => { settled.push(this === s ? 1 : -1) }) })
    app.on('session/flush', () => gates[1]!.promise.then(() => { settled.push(2) }))
    let result: boolean | undefined
    const flushing = store.flush(s).then(value => { result = value })
    gates[1]!.resolve()
    await tick()
    expect(result).toBeUndefined()
    gates[0]!.resolve()
    await flushing
    expect([result, settled]).toEqual([true, [2, 1]])
  })

  it('S-105 all listeners start, and the earliest-registered failure wins after all settle', async () => {
    const { app, store } = await makeApp()
    const s = store.create(sid('s'))
    const first = new Error('first')
    const slow = deferred()
    const started: string[] = []
    app.on('session/flush', () => { started.push('one'); throw first })
    app.on('session/flush', () => { started.push('two'); return slow.promise })
    let outcome: unknown = 'pending'
    const flushing = store.flush(s).then(() => { outcome = 'resolved' }, (error: unknown) => { outcome = error })
    expect(started).toEqual(['one', 'two'])
    await tick()
    expect(outcome).toBe('pending')
    slow.reject(new Error('second'))
    await flushing
    expect(outcome).toBe(first)

    const { app: app2, store: store2 } = await makeApp()
    const t = store2.create(sid('t'))
    const gate = deferred()
    const early = new Error('early')
    app2.on('session/flush', () => gate.promise.then(() => { throw first }))
    app2.on('session/flush', () => Promise.reject(early))
    const second = store2.flush(t).then(() => 'resolved', (error: unknown) => error)
    await tick()
    gate.resolve()
    expect(await second).toBe(first)
  })

  it('S-106 flush of a session that is not live rejects with SESSION_NOT_LIVE', async () => {
    const { store } = await makeApp()
    await expect(store.flush(store.prepare(sid('p')))).rejects.toMatchObject({
      code: 'SESSION_NOT_LIVE', message: 'session "p" is not live in this store' })
    const s = store.prepare(sid('d'))
    store.enter(s)()
    await expect(store.flush(s)).rejects.toMatchObject({ code: 'SESSION_NOT_LIVE' })
  })
})

describe('restore through the store, and fiber-bound registrations', () => {
  it('S-107 prepare with eventState restores; an unregistered seed type is UNKNOWN_EVENT_TYPE with the seed prefix', async () => {
    const { store } = await makeApp()
    const header = { version: 1, id: sid('r'), createdAt: 1 }
    const restored = store.prepare(sid('r'), { seed: [ev('turn/start', 0, { turn: 1 })], meta: header, inheritedEventCount: 0,
      eventState: 'detached' })
    expect(restored.events.map(e => e.type)).toEqual(['turn/start', 'session/end-seed'])
    expect(restored.firstLiveSeq).toBe(1)
    const seed = [ev('turn/start', 0, { turn: 1 }), ev('plugin/y', 1, {})]
    const error = expectError(() => store.prepare(sid('r'), { seed: JSON.parse(JSON.stringify(seed)) as never, meta: header,
      inheritedEventCount: 0, eventState: 'detached' }), 'UNKNOWN_EVENT_TYPE', 'seed event at index 1: event type "plugin/y" is not '
      + 'registered with the session store; register it or mark the event ignorable')
    expect(error.index).toBe(1)
    expectError(() => store.create(sid('c'), { seed }), 'UNKNOWN_EVENT_TYPE', 'seed event at index 1: event type "plugin/y" is not '
      + 'registered with the session store; register it or mark the event ignorable')
    expect(store.create(sid('c'), { seed: [ev('plugin/y', 0, {}, { ignorable: true })] }).seq).toBe(1)
    expect(store.list().map(s => s.id)).toEqual(['c'])
  })

  it('S-107 names the first seed event that is neither known nor ignorable, across repeated and interleaved types', async () => {
    const { store } = await makeApp()
    store.registerEventType('plugin/k')
    const message = (i: number, type: string): string => `seed event at index ${i}: event type "${type}" is not registered `
      + 'with the session store; register it or mark the event ignorable'
    const seed = [ev('plugin/a', 0, {}, { ignorable: true }), ev('plugin/k', 1, {}), ev('plugin/k', 2, {}),
      ev('plugin/b', 3, {}), ev('plugin/a', 4, {}), ev('plugin/b', 5, {})]
    expect(expectError(() => store.create(sid('c'), { seed }), 'UNKNOWN_EVENT_TYPE', message(3, 'plugin/b')).index).toBe(3)
    store.registerEventType('plugin/b')
    expect(expectError(() => store.create(sid('c'), { seed }), 'UNKNOWN_EVENT_TYPE', message(4, 'plugin/a')).index).toBe(4)
    expect(store.create(sid('c'), { seed: seed.slice(0, 4) }).seq).toBe(4)
  })

  it('checks and type registrations are bound to the caller fiber', async () => {
    const { app, store } = await makeApp()
    const checked: number[] = []
    const fiber = app.plugin({ inject: ['sessions'], apply: (ctx: Context) => {
      ctx.sessions.registerEventType('plugin/q')
      ctx.sessions.addCheck((_session, event) => { checked.push(event.seq) })
    } })
    await fiber
    const s = store.create(sid('s'))
    appendAs(s, 'plugin/q', {})
    expect([checked, store.isKnownEventType('plugin/q')]).toEqual([[0], true])
    await fiber.dispose()
    expect(store.isKnownEventType('plugin/q')).toBe(false)
    s.append('turn/start', { turn: 1 })
    expect(checked).toEqual([0])
  })

  it('disposing the store detaches every remaining session with session/disposed', async () => {
    const app = new Context()
    const log: string[] = []
    recordAll(app, log)
    const fiber = app.plugin(SessionStore)
    await fiber
    const store = app.sessions
    const s = store.create(sid('s'))
    store.enter(store.prepare(sid('quiet')))
    await fiber.dispose()
    expect(log).toEqual(['created s', 'disposed s'])
    s.append('turn/start', { turn: 1 })
    expect(log).toHaveLength(2)
    expect(s.seq).toBe(1)
  })
})

describe('containment of store dispatch failures', () => {
  it('a failing session/disposed dispatch is logged, and the session still leaves the store', async () => {
    const { app, store, logs } = await makeApp()
    const s = store.create(sid('s'))
    const ran: string[] = []
    app.on('session/disposed', () => { ran.push('listener') })
    app.on('internal/dispatch', (_mode, name) => { if (name === 'session/disposed') throw new Error('hook') })
    const detach = store.enter(store.prepare(sid('t')))
    store.announce(store.get(sid('t'))!)
    detach()
    expect(logs).toContain('session "t": session/disposed dispatch failed: Error: hook')
    expect([ran, store.list()]).toEqual([[], [s]])
  })

  it('a throwing internal/dispatch hook for session/created: announce throws it, and create rolls back', async () => {
    const { app, store } = await makeApp()
    const log: string[] = []
    recordAll(app, log)
    const boom = new Error('hook')
    const stop = app.on('internal/dispatch', (_mode, name) => { if (name === 'session/created') throw boom })
    expect(thrown(() => store.create(sid('c')))).toBe(boom)
    expect([store.get(sid('c')), log]).toEqual([undefined, ['disposed c']])
    const p = store.prepare(sid('p'))
    const detach = store.enter(p)
    expect(thrown(() => store.announce(p))).toBe(boom)
    stop()
    expectError(() => store.announce(p), 'ALREADY_ANNOUNCED', 'session "p" was already announced')
    detach()
    expect(log).toEqual(['disposed c', 'disposed p'])
  })

  it('a listener that rejects with a value whose String() throws is still logged', async () => {
    const { app, s, logs } = await published()
    const weird = Object.create(null) as object
    app.on('session/event', () => Promise.reject(weird))
    appendAs(s, 'plugin/x', {})
    await tick()
    expect(logs).toContain('session "s": session/event listener rejected: [object Object]')
  })
})
