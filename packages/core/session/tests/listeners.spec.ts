/** Direct `session/event` listener calls (`listeners.ts`): same calls, same lifetimes, minus Cordis's tracing proxy. */

import { Context, symbols } from '@deepseek-ai/cordis'
import { describe, expect, it } from 'vitest'
import SessionStore, { type Session, type SessionEvent } from '../src/index.ts'
import { originalListener } from '../src/listeners.ts'
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
