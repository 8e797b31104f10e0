import vm from 'node:vm'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { Session, type SessionEvent } from '../src/index.ts'
import { appendAs, appendUser, expectError, makeApp, published, sid, thrown, userMsg } from './harness.ts'

afterEach(() => {
  vi.restoreAllMocks()
})

const detached = (): Session => Session.create(sid('d'))
const notJson = (type = 'plugin/x'): [string, string] => ['NOT_JSON', `event "${type}": data is not lossless JSON`]

describe('append and lossless JSON', () => {
  it('S-001 three appends on a detached session give seqs 0–2 and seq is then 3', () => {
    const s = detached()
    const seqs = [s.append('turn/start', { turn: 1 }), appendAs(s, 'plugin/x', {}), appendAs(s, 'plugin/x', { a: 1 })].map(e => e.seq)
    expect(seqs).toEqual([0, 1, 2])
    expect(s.seq).toBe(3)
    expect(s.events.length).toBe(3)
  })

  it('S-002 a BigInt in data is NOT_JSON', () => {
    const s = detached()
    expectError(() => appendAs(s, 'plugin/x', { a: 1n }), ...notJson())
    expect(s.seq).toBe(0)
  })

  it('S-003 every non-JSON value in data is NOT_JSON', () => {
    class Thing { x = 1 }
    class MyArray extends Array<number> {}
    const cycle: Record<string, unknown> = {}
    cycle['self'] = cycle
    const nonEnumerable = Object.defineProperty({}, 'hidden', { value: 1, enumerable: false })
    const extraKey = Object.assign([1, 2], { extra: true })
    const bad: unknown[] = [
      { f: () => 1 }, { s: Symbol('x') }, { m: new Map() }, { d: new Date(0) }, { u: undefined },
      // eslint-disable-next-line no-sparse-arrays
      { a: [1, , 2] }, { n: NaN }, { i: Infinity }, { z: -0 }, { c: new Thing() }, { a: MyArray.from([1]) },
      { [Symbol('k')]: 1 }, nonEnumerable, { a: extraKey }, cycle,
    ]
    const s = detached()
    for (const data of bad) expectError(() => appendAs(s, 'plugin/x', data), ...notJson())
    expect(s.seq).toBe(0)
  })

  it('S-004 an object referenced twice is stored as two distinct frozen copies', () => {
    const shared = { v: 1 }
    const event = appendAs(detached(), 'plugin/x', { a: shared, b: shared })
    const data = event.data as unknown as { a: object; b: object }
    expect(data.a).toEqual({ v: 1 })
    expect(data.a).not.toBe(data.b)
    expect(data.a).not.toBe(shared)
    expect(Object.isFrozen(data.a) && Object.isFrozen(data.b)).toBe(true)
  })

  it('S-005 null prototypes become plain, other realms are accepted, forged prototypes are refused', () => {
    const s = detached()
    const bare = Object.assign(Object.create(null) as object, { k: 1 })
    const stored = appendAs(s, 'plugin/x', { bare }).data as unknown as { bare: object }
    expect(Object.getPrototypeOf(stored.bare)).toBe(Object.prototype)
    const foreign = vm.runInNewContext('({ list: [1, { x: 2 }] })') as object
    const copy = appendAs(s, 'plugin/x', foreign).data
    expect(copy).toEqual({ list: [1, { x: 2 }] })
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype)
    const forged = Object.create({ constructor: Object }) as object
    expectError(() => appendAs(s, 'plugin/x', { forged }), ...notJson())
    expect(s.seq).toBe(2)
  })

  it('S-006 a getter is read exactly once, and a throwing getter propagates', () => {
    let calls = 0
    const data = { get v(): unknown { return calls++ === 0 ? 'a' : 1n } }
    const s = detached()
    expect(appendAs(s, 'plugin/x', data).data).toEqual({ v: 'a' })
    expect(calls).toBe(1)
    const boom = new Error('getter')
    const throwing = { get v(): unknown { throw boom } }
    expect(thrown(() => appendAs(s, 'plugin/x', throwing))).toBe(boom)
    expect(s.seq).toBe(1)
  })

  it('S-007 999 nested levels append and reload, 1,000 are NOT_JSON, an own __proto__ key is kept', () => {
    const nest = (depth: number): unknown => {
      let value: unknown = []
      for (let i = 1; i < depth; i++) value = [value]
      return value
    }
    const s = detached()
    const deep = appendAs(s, 'plugin/x', nest(999))
    const text = JSON.stringify(deep)
    const reloaded = Session.create(sid('r'), { seed: [JSON.parse(text) as SessionEvent] })
    expect(JSON.stringify(reloaded.events[0])).toBe(text)
    expectError(() => appendAs(s, 'plugin/x', nest(1000)), ...notJson())
    const proto = appendAs(s, 'plugin/x', JSON.parse('{"__proto__": {"x": 1}}')).data
    expect(Object.hasOwn(proto, '__proto__')).toBe(true)
    expect(Object.getPrototypeOf(proto)).toBe(Object.prototype)
    expect(JSON.stringify(proto)).toBe('{"__proto__":{"x":1}}')
  })

  it('S-008 later mutation of the inputs changes nothing, and stored events cannot be written', () => {
    const s = detached()
    appendUser(s, 'u0')
    const data = { ...userMsg('u1'), content: [{ type: 'text' as const, text: 'a' }] }
    const op = { op: 'replace' as const, start: 0, end: 0 }
    const sources = [0]
    const event = s.append('user/message', data, { surfaceOp: op, sourceEventSeqs: sources })
    ;(data.content[0] as { text: string }).text = 'changed'
    op.start = 9
    sources.push(7)
    expect(event.data.content[0]).toEqual({ type: 'text', text: 'a' })
    expect(event).toMatchObject({ surfaceOp: { op: 'replace', start: 0, end: 0 }, sourceEventSeqs: [0] })
    expect(() => { (event as { seq: number }).seq = 5 }).toThrow(TypeError)
    expect(() => { (event.data.content as unknown[]).push(1) }).toThrow(TypeError)
    expect(() => { (event.sourceEventSeqs as number[])[0] = 3 }).toThrow(TypeError)
  })

  it('S-009 the returned event is events.at(-1) and not the caller object', () => {
    const s = detached()
    const data = { a: [1] }
    const event = appendAs(s, 'plugin/x', data)
    expect(event).toBe(s.events.at(-1))
    expect(event.data).not.toBe(data)
    expect(Object.keys(event)).toEqual(['type', 'seq', 'time', 'data'])
  })

  it('S-010 times never decrease within a lifecycle', () => {
    const s = detached()
    vi.spyOn(Date, 'now').mockReturnValueOnce(1000).mockReturnValueOnce(500)
    expect(appendAs(s, 'plugin/x', {}).time).toBe(1000)
    expect(appendAs(s, 'plugin/x', {}).time).toBe(1000)
  })

  it('S-011 session/end-seed is reserved', () => {
    expectError(() => detached().append('session/end-seed', {}), 'RESERVED_EVENT',
      'event "session/end-seed" is written only by session construction')
  })

  it('S-012 invalid type names are INVALID_EVENT', () => {
    const s = detached()
    expectError(() => appendAs(s, 'noslash', {}), 'INVALID_EVENT', 'event type "noslash" is invalid')
    expectError(() => appendAs(s, 'Turn/Start', {}), 'INVALID_EVENT', 'event type "Turn/Start" is invalid')
  })

  it('S-013 an unknown append option is INVALID_EVENT', () => {
    expectError(() => detached().append('turn/start', { turn: 1 }, { foo: 1 } as never), 'INVALID_EVENT',
      'event "turn/start": unknown append option "foo"')
  })

  it('S-014 ignorable: true is stored as is, ignorable: false is INVALID_EVENT', () => {
    const s = detached()
    const event = appendAs(s, 'plugin/x', { a: 1 }, { ignorable: true })
    expect(event).toEqual({ type: 'plugin/x', seq: 0, time: event.time, data: { a: 1 }, ignorable: true })
    expect(Object.keys(event)).toEqual(['type', 'seq', 'time', 'data', 'ignorable'])
    expectError(() => appendAs(s, 'plugin/x', {}, { ignorable: false }), 'INVALID_EVENT',
      'event "plugin/x": ignorable must be true when present')
  })

  it('S-015 a surface event cannot be ignorable', () => {
    expectError(() => detached().append('user/message', userMsg('u'), { surfaceOp: 'append', ignorable: true } as never),
      'INVALID_EVENT', 'event "user/message": surface events cannot be ignorable')
  })

  it('S-016 unregistered types are refused on a published session until registered or marked ignorable', async () => {
    const { store, s } = await published()
    const unknown = ['UNKNOWN_EVENT_TYPE', 'event type "plugin/y" is not registered with the session store; '
      + 'register it or mark the event ignorable'] as const
    expectError(() => appendAs(s, 'plugin/y', {}), ...unknown)
    expect(appendAs(s, 'plugin/y', {}, { ignorable: true }).ignorable).toBe(true)
    const dispose = store.registerEventType('plugin/y')
    expect(appendAs(s, 'plugin/y', {}).type).toBe('plugin/y')
    dispose()
    expectError(() => appendAs(s, 'plugin/y', {}), ...unknown)
    expect(s.seq).toBe(2)
  })

  it('S-017 registrations are reference-counted, and a detached session accepts any valid name', async () => {
    const { store, s } = await published()
    const one = store.registerEventType('plugin/z')
    const two = store.registerEventType('plugin/z')
    one()
    one()
    expect(store.isKnownEventType('plugin/z')).toBe(true)
    expect(appendAs(s, 'plugin/z', {}).seq).toBe(0)
    two()
    expect(store.isKnownEventType('plugin/z')).toBe(false)
    expect(appendAs(detached(), 'never/registered', {}).seq).toBe(0)
  })

  it('S-018 registering a bad name is INVALID_EVENT, and core types are known', async () => {
    const { store } = await makeApp()
    expectError(() => store.registerEventType('x'), 'INVALID_EVENT', 'event type "x" is invalid')
    expect(store.isKnownEventType('turn/end')).toBe(true)
    store.registerEventType('turn/end')()
    expect(store.isKnownEventType('turn/end')).toBe(true)
    expect(store.isKnownEventType('plugin/q')).toBe(false)
  })
})

describe('checks, reentrancy and notification', () => {
  it('S-035 a listener appending to the same session is contained; later listeners get the outer event', async () => {
    const { app, s, logs } = await published()
    const got: SessionEvent[] = []
    app.on('session/event', session => { appendAs(session, 'plugin/x', { inner: true }) })
    app.on('session/event', (_session, event) => { got.push(event) })
    const outer = appendAs(s, 'plugin/x', {})
    expect(s.events).toEqual([outer])
    expect(got).toEqual([outer])
    expect(logs.some(line => line.includes('session "s": session/event listener threw: SessionError: session "s": '
      + 'append cannot reenter while another append is being published'))).toBe(true)
  })

  it('S-036 a listener may append to another published session, whose listeners run', async () => {
    const { app, store, s } = await published()
    const other = store.create(sid('o'))
    const seen: string[] = []
    app.on('session/event', (session, event) => {
      seen.push(`${session.id}:${event.seq}`)
      if (session === s) appendAs(other, 'plugin/x', {})
    })
    appendAs(s, 'plugin/x', {})
    expect(seen).toEqual(['s:0', 'o:0'])
    expect(other.seq).toBe(1)
  })

  it('S-037 appending from a session/created listener is REENTRANT_APPEND', async () => {
    const { app, store } = await makeApp()
    let error: unknown
    app.on('session/created', session => {
      error = thrown(() => session.append('turn/start', { turn: 1 }))
    })
    const s = store.create(sid('s'))
    expect(error).toMatchObject({ code: 'REENTRANT_APPEND',
      message: 'session "s": append cannot run while session/created is being dispatched' })
    expect(s.seq).toBe(0)
  })

  it('S-038 a throwing check vetoes with its own error; nothing commits and the seq is reused', async () => {
    const { app, store, s } = await published()
    const veto = new Error('no')
    let armed = true
    const notified: number[] = []
    store.addCheck(() => { if (armed) throw veto })
    app.on('session/event', (_session, event) => { notified.push(event.seq) })
    expect(thrown(() => appendAs(s, 'plugin/x', {}))).toBe(veto)
    expect([s.seq, notified]).toEqual([0, []])
    armed = false
    expect(appendAs(s, 'plugin/x', {}).seq).toBe(0)
    expect(notified).toEqual([0])
  })

  it('S-039 commit callbacks run in order after commit and before listeners, and only when nothing vetoed', async () => {
    const { app, store, s } = await published()
    const order: string[] = []
    let bThrows = true
    store.addCheck(() => () => { order.push(`A ${s.seq}`) })
    store.addCheck(() => {
      if (bThrows) throw new Error('B')
      return () => { order.push(`B ${s.seq}`) }
    })
    app.on('session/event', () => { order.push('listener') })
    expect(thrown(() => appendAs(s, 'plugin/x', {})).message).toBe('B')
    expect(order).toEqual([])
    bThrows = false
    appendAs(s, 'plugin/x', {})
    expect(order).toEqual(['A 1', 'B 1', 'listener'])
  })

  it('S-040 inside a check the log excludes the candidate, which has its final seq and time', async () => {
    const { store, s } = await published()
    appendAs(s, 'plugin/x', {})
    let seen: { length: number; candidate: SessionEvent } | undefined
    store.addCheck((session, candidate) => { seen = { length: session.events.length, candidate } })
    const event = appendAs(s, 'plugin/x', { b: 1 })
    expect(seen?.length).toBe(1)
    expect(seen?.candidate).toBe(event)
    expect([seen?.candidate.seq, seen?.candidate.time]).toEqual([1, event.time])
  })

  it('S-041 a throwing commit callback is logged and the event stays committed', async () => {
    const { store, s, logs } = await published()
    store.addCheck(() => () => { throw new Error('cb') })
    const event = appendAs(s, 'plugin/x', {})
    expect(s.events.at(-1)).toBe(event)
    expect(logs).toContain('session "s": check commit callback threw: Error: cb')
  })

  it('S-042 no check runs on detached sessions or between enter and announce', async () => {
    const { store } = await makeApp()
    const checked: string[] = []
    store.addCheck(session => { checked.push(session.id) })
    appendAs(detached(), 'plugin/x', {})
    const p = store.prepare(sid('p'))
    store.enter(p)
    p.append('turn/start', { turn: 1 })
    expect(checked).toEqual([])
    store.announce(p)
    p.append('turn/end', { turn: 1, reason: { kind: 'completed' } })
    expect(checked).toEqual(['p'])
  })

  it('S-043 throwing and rejecting listeners are logged, and every listener runs', async () => {
    const { app, s, logs } = await published()
    const ran: number[] = []
    app.on('session/event', () => { ran.push(1); throw new Error('sync') })
    app.on('session/event', () => { ran.push(2); return Promise.reject(new Error('async')) })
    app.on('session/event', () => { ran.push(3) })
    const event = appendAs(s, 'plugin/x', {})
    expect(event.seq).toBe(0)
    expect(ran).toEqual([1, 2, 3])
    await new Promise(resolve => setImmediate(resolve))
    expect(logs).toContain('session "s": session/event listener threw: Error: sync')
    expect(logs).toContain('session "s": session/event listener rejected: Error: async')
  })

  it('S-044 a listener sees its event as session.events.at(-1), with this bound to the session', async () => {
    const { app, s } = await published()
    const seen: boolean[] = []
    app.on('session/event', function (this: Session, session, event) {
      seen.push(event === session.events.at(-1), this === session, session === s)
    })
    appendAs(s, 'plugin/x', {})
    s.append('turn/start', { turn: 1 })
    expect(seen).toEqual([true, true, true, true, true, true])
  })

  it('S-045 a throwing internal/dispatch hook for session/event vetoes the append', async () => {
    const { app, s } = await published()
    const boom = new Error('hook')
    const checked: number[] = []
    app.sessions.addCheck((_session, event) => () => { checked.push(event.seq) })
    const dispose = app.on('internal/dispatch', (_mode, name) => { if (name === 'session/event') throw boom })
    expect(thrown(() => appendAs(s, 'plugin/x', {}))).toBe(boom)
    expect([s.seq, s.events.length, checked]).toEqual([0, 0, []])
    dispose()
    expect(appendAs(s, 'plugin/x', {}).seq).toBe(0)
    expect(checked).toEqual([0])
  })

  it('listeners added, prepended or removed between appends are resolved afresh, with or without dispatch observers', async () => {
    const { app, s } = await published()
    const seen: string[] = []
    const disposeA = app.on('session/event', function (this: Session, _session, event) { seen.push(`A${event.seq} ${this === s}`) })
    appendAs(s, 'plugin/x', {})
    app.on('session/event', (_session, event) => { seen.push(`B${event.seq}`) })
    app.on('session/event', (_session, event) => { seen.push(`P${event.seq}`) }, true)
    appendAs(s, 'plugin/x', {})
    disposeA()
    appendAs(s, 'plugin/x', {})
    const observed: string[] = []
    const stop = app.on('internal/dispatch', (_mode, name) => { observed.push(name) })
    appendAs(s, 'plugin/x', {})
    stop()
    expect(seen).toEqual(['A0 true', 'P1', 'A1 true', 'B1', 'P2', 'B2', 'P3', 'B3'])
    expect(observed).toEqual(['session/event'])
  })
})

describe('append pipeline order and options (01 §3.1)', () => {
  it('runs the §3.1 steps in order: an input that breaks two steps fails at the earlier one, leaving no trace', async () => {
    const { app, store, s } = await published()
    let checks = 0
    let notified = 0
    store.addCheck(() => { checks++ })
    app.on('session/event', () => { notified++ })
    const user = userMsg('u')
    const steps: [() => unknown, string, string][] = [
      // step 2 before step 4
      [() => appendAs(s, 'session/end-seed', {}, { foo: 1 }), 'RESERVED_EVENT',
        'event "session/end-seed" is written only by session construction'],
      // step 3 (name) before step 3 (registration) and step 4
      [() => appendAs(s, 'Bad/x', {}, { foo: 1 }), 'INVALID_EVENT', 'event type "Bad/x" is invalid'],
      // step 3 (registration) before step 4
      [() => appendAs(s, 'plugin/y', {}, { foo: 1 }), 'UNKNOWN_EVENT_TYPE',
        'event type "plugin/y" is not registered with the session store; register it or mark the event ignorable'],
      // step 4: unknown key, then ignorable's value, then ignorable on a surface type
      [() => appendAs(s, 'plugin/x', {}, { ignorable: false, foo: 1 }), 'INVALID_EVENT', 'event "plugin/x": unknown append option "foo"'],
      [() => appendAs(s, 'user/message', user, { surfaceOp: 'append', ignorable: 1 }), 'INVALID_EVENT',
        'event "user/message": ignorable must be true when present'],
      // step 4 before step 5
      [() => appendAs(s, 'plugin/x', { a: 1n }, { foo: 1 }), 'INVALID_EVENT', 'event "plugin/x": unknown append option "foo"'],
      // step 5: data first, then the surface metadata
      [() => appendAs(s, 'user/message', { a: 1n }, { surfaceOp: 'append', sourceEventSeqs: [1n] }), 'NOT_JSON',
        'event "user/message": data is not lossless JSON'],
      [() => appendAs(s, 'user/message', user, { surfaceOp: 'append', sourceEventSeqs: [0, 1n] }), 'NOT_JSON',
        'event "user/message": surface metadata is not lossless JSON'],
      [() => appendAs(s, 'user/message', user, { surfaceOp: { op: 'replace', start: Number.NaN, end: 0 } }), 'NOT_JSON',
        'event "user/message": surface metadata is not lossless JSON'],
      // step 5 before step 6, step 6 before step 7
      [() => appendAs(s, 'user/message', {}, { surfaceOp: 'append', sourceEventSeqs: [-0] }), 'NOT_JSON',
        'event "user/message": surface metadata is not lossless JSON'],
      [() => appendAs(s, 'user/message', {}, { surfaceOp: 'bogus' }), 'INVALID_EVENT', 'event "user/message": data.id is required'],
      // step 7 before step 8: the check never sees a candidate the surface refuses
      [() => appendAs(s, 'user/message', user, { surfaceOp: 'bogus' }), 'INVALID_SURFACE', 'event "user/message": invalid surfaceOp'],
    ]
    for (const [act, code, message] of steps) expectError(act, code, message)
    expect([s.seq, s.surface.nodes, checks, notified]).toEqual([0, [], 0, 0])
  })

  it('REENTRANT_APPEND outranks every other failure, and also applies while the checks run', async () => {
    const { app, store, s } = await published()
    const errors: unknown[] = []
    app.on('session/event', session => { errors.push(thrown(() => appendAs(session, 'session/end-seed', {}, { foo: 1 }))) })
    let inCheck = true
    store.addCheck(session => {
      if (inCheck) errors.push(thrown(() => appendAs(session, 'plugin/x', {})))
    })
    appendAs(s, 'plugin/x', {})
    inCheck = false
    const reenter = { code: 'REENTRANT_APPEND', message: 'session "s": append cannot reenter while another append is being published' }
    expect(errors).toMatchObject([reenter, reenter])
    expect(s.seq).toBe(1)
  })

  it('UNKNOWN_EVENT_TYPE applies from enter on, before announce', async () => {
    const { store } = await makeApp()
    const p = store.prepare(sid('p'))
    appendAs(p, 'plugin/y', {})
    store.enter(p)
    expectError(() => appendAs(p, 'plugin/y', {}), 'UNKNOWN_EVENT_TYPE',
      'event type "plugin/y" is not registered with the session store; register it or mark the event ignorable')
    expect(appendAs(p, 'plugin/y', {}, { ignorable: true }).seq).toBe(1)
  })

  it('append options: a non-object is INVALID_EVENT, undefined values are absent, inherited keys are ignored', () => {
    const s = detached()
    expectError(() => appendAs(s, 'plugin/x', {}, null), 'INVALID_EVENT', 'event "plugin/x": append options must be an object')
    expectError(() => appendAs(s, 'plugin/x', {}, 'append'), 'INVALID_EVENT', 'event "plugin/x": append options must be an object')
    expect(Object.keys(appendAs(s, 'plugin/x', {}, { ignorable: undefined }))).toEqual(['type', 'seq', 'time', 'data'])
    const v3 = 'event "user/message" is a surface type and requires surfaceOp'
    expectError(() => appendAs(s, 'user/message', userMsg('u'), { surfaceOp: undefined }), 'INVALID_SURFACE', v3)
    expectError(() => appendAs(s, 'user/message', userMsg('u'), Object.create({ surfaceOp: 'append' })), 'INVALID_SURFACE', v3)
    expect(Object.keys(appendAs(s, 'plugin/x', {}, Object.create({ foo: 1, ignorable: true })))).toEqual(['type', 'seq', 'time', 'data'])
    expect(s.seq).toBe(2)
  })

  it('reads each append option exactly once, and a getter in data that appends again does not mix up the two calls', () => {
    const s = detached()
    const reads: string[] = []
    const options = {
      get surfaceOp(): unknown { reads.push('surfaceOp'); return 'append' },
      get sourceEventSeqs(): unknown { reads.push('sourceEventSeqs'); return [0] },
    }
    appendAs(s, 'plugin/x', {})
    const data = { ...userMsg('u'), get id(): string { appendAs(s, 'plugin/x', { inner: true }, { ignorable: true }); return 'u' } }
    const outer = appendAs(s, 'user/message', data, options)
    expect(reads).toEqual(['surfaceOp', 'sourceEventSeqs'])
    expect(s.events.map(e => e.type)).toEqual(['plugin/x', 'plugin/x', 'user/message'])
    expect(outer).toEqual({ type: 'user/message', seq: 2, time: outer.time, data: userMsg('u'), surfaceOp: 'append', sourceEventSeqs: [0] })
    expect(s.events[1]).toMatchObject({ seq: 1, ignorable: true })
  })
})
