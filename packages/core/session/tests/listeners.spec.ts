/** Direct `session/event` listener calls (`cordis-fast-path.ts`): same calls, same lifetimes, minus Cordis's tracing proxy. */

import { Context, symbols } from '@deepseek-ai/cordis'
import { captureLogs } from '@logbook/test-kit'
import { describe, expect, it } from 'vitest'
import SessionStore, { type Session, type SessionEvent } from '../src/index.ts'
import { originalListener } from '../src/cordis-fast-path.ts'
import { appendAs, published, sid } from './harness.ts'

type Callback = (...args: unknown[]) => unknown

function rawReflect(app: Context): object {
  const reflect = app.reflect as unknown as { readonly [key: symbol]: object | undefined }
  return reflect[symbols.original] ?? reflect
}

function hookCallbacks(app: Context, name: string): Callback[] {
  const hooks = (app.events as unknown as { _hooks: Record<string, { callback: Callback }[] | undefined> })._hooks
  return (hooks[name] ?? []).map(hook => hook.callback)
}

describe('session/event listeners', () => {
  it('are called as the original callbacks, with this = session and (session, event)', async () => {
    const { app, s } = await published()
    const calls: [unknown, Session, SessionEvent][] = []
    const listener = function (this: unknown, session: Session, event: SessionEvent): void {
      calls.push([this, session, event])
    }
    app.on('session/event', listener)
    const [wrapped] = hookCallbacks(app, 'session/event')
    expect(wrapped).not.toBe(listener) // Cordis keeps its tracing proxy in the hook list
    expect(originalListener(wrapped!)).toBe(listener)
    const event = appendAs(s, 'plugin/x', { a: 1 })
    expect(calls).toEqual([[s, s, event]])
    expect(calls[0]![2]).toBe(event)
  })

  it('registered before the store was loaded are still called, through their proxy', async () => {
    const app = new Context()
    const seen: string[] = []
    app.on('session/event', function (this: Session, session, event) { seen.push(`${this === session} ${session.id}:${event.seq}`) })
    const [early] = hookCallbacks(app, 'session/event')
    await app.plugin(SessionStore)
    expect(originalListener(early!)).toBe(early)
    const s = app.sessions.create(sid('s'))
    s.append('turn/start', { turn: 1 })
    expect(seen).toEqual(['true s:0'])
  })

  it('keep their fiber-bound lifetime: a disposed plugin stops receiving events', async () => {
    const { app, s } = await published()
    const seen: number[] = []
    const fiber = app.plugin({ apply: (ctx: Context) => { ctx.on('session/event', (_session, event) => { seen.push(event.seq) }) } })
    await fiber
    appendAs(s, 'plugin/x', {})
    await fiber.dispose()
    appendAs(s, 'plugin/x', {})
    expect(seen).toEqual([0])
    expect(hookCallbacks(app, 'session/event')).toEqual([])
  })

  it('are remembered only while a store is loaded on the root; the last store removes its shadow', async () => {
    const app = new Context()
    const reflect = rawReflect(app)
    expect(Object.hasOwn(reflect, 'bind')).toBe(false)
    const fiber = app.plugin(SessionStore)
    await fiber
    expect(Object.hasOwn(reflect, 'bind')).toBe(true)
    const tracked = (): void => {}
    app.on('session/flush', tracked)
    expect(originalListener(hookCallbacks(app, 'session/flush')[0]!)).toBe(tracked)
    await fiber.dispose()
    expect(Object.hasOwn(reflect, 'bind')).toBe(false)
    const untracked = (): void => {}
    app.on('session/disposed', untracked)
    const [proxy] = hookCallbacks(app, 'session/disposed')
    expect(originalListener(proxy!)).toBe(proxy)
  })
})

/** A root app whose reflect service already carries another module's own `bind`: the fast-path probe refuses it. */
async function publicDispatchApp(): Promise<{ app: Context; s: Session; logs: string[] }> {
  const app = new Context()
  const reflect = rawReflect(app) as { bind?: unknown }
  const inherited = Object.getPrototypeOf(reflect).bind as (this: unknown, callback: Callback) => unknown
  Object.defineProperty(reflect, 'bind', {
    value: function (this: unknown, callback: Callback) { return inherited.call(this, callback) },
    writable: true, enumerable: false, configurable: true,
  })
  const { lines: logs } = captureLogs(app)
  await app.plugin(SessionStore)
  app.sessions.registerEventType('plugin/x')
  return { app, logs, s: app.sessions.create(sid('s')) }
}

const FALLBACK_LINE = 'session/event listeners resolve through ctx.events.dispatch: the reflect service bind is replaced by another module'

describe.each([
  ['the fast path', published],
  ['public dispatch (the probe failed)', publicDispatchApp],
])('session/event delivery through %s', (path, boot) => {
  const fast = path === 'the fast path'

  it('logs which path it takes, and unwraps hook callbacks only on the fast path', async () => {
    const { app, logs } = await boot()
    const listener = (): void => {}
    app.on('session/event', listener)
    const [hook] = hookCallbacks(app, 'session/event')
    expect(originalListener(hook!)).toBe(fast ? listener : hook)
    expect(logs.filter(line => line.includes('resolve through ctx.events.dispatch'))).toEqual(fast ? [] : [FALLBACK_LINE])
  })

  it('calls every listener in order (prepend first) with this = session and (session, event), afresh after changes', async () => {
    const { app, s } = await boot()
    const seen: string[] = []
    const disposeA = app.on('session/event', function (this: Session, session, event) {
      seen.push(`A${event.seq} ${this === s} ${session === s} ${event === s.events.at(-1)}`)
    })
    appendAs(s, 'plugin/x', {})
    app.on('session/event', (_session, event) => { seen.push(`B${event.seq}`) })
    app.on('session/event', (_session, event) => { seen.push(`P${event.seq}`) }, true)
    appendAs(s, 'plugin/x', {})
    disposeA()
    appendAs(s, 'plugin/x', {})
    expect(seen).toEqual(['A0 true true true', 'P1', 'A1 true true true', 'B1', 'P2', 'B2'])
  })

  it('S-043 contains a throwing and a rejecting listener, and every listener runs', async () => {
    const { app, s, logs } = await boot()
    const ran: number[] = []
    app.on('session/event', () => { ran.push(1); throw new Error('sync') })
    app.on('session/event', () => { ran.push(2); return Promise.reject(new Error('async')) })
    app.on('session/event', () => { ran.push(3) })
    expect(appendAs(s, 'plugin/x', {}).seq).toBe(0)
    expect(ran).toEqual([1, 2, 3])
    await new Promise(resolve => setImmediate(resolve))
    expect(logs).toContain('session "s": session/event listener threw: Error: sync')
    expect(logs).toContain('session "s": session/event listener rejected: Error: async')
  })

  it('S-045 a throwing internal/dispatch hook for session/event vetoes the append', async () => {
    const { app, s } = await boot()
    const boom = new Error('hook')
    const dispose = app.on('internal/dispatch', (_mode, name) => { if (name === 'session/event') throw boom })
    let caught: unknown
    try {
      appendAs(s, 'plugin/x', {})
    } catch (error) {
      caught = error
    }
    expect(caught).toBe(boom)
    expect([s.seq, s.events.length]).toEqual([0, 0])
    dispose()
    expect(appendAs(s, 'plugin/x', {}).seq).toBe(0)
  })

  it('contains a throwing session/disposed listener and still detaches', async () => {
    const { app, logs } = await boot()
    const ran: string[] = []
    app.on('session/disposed', session => { ran.push(session.id); throw new Error('gone') })
    app.on('session/disposed', session => { ran.push(`${session.id} again`) })
    const fiber = app.plugin({ inject: ['sessions'], apply: (ctx: Context) => void ctx.sessions.create(sid('d')) })
    await fiber
    await fiber.dispose()
    expect(app.sessions.get(sid('d'))).toBeUndefined()
    expect(ran).toEqual(['d', 'd again'])
    expect(logs).toContain('session "d": session/disposed listener threw: Error: gone')
  })
})
