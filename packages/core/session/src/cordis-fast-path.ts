/**
 * The one module that reads Cordis internals: how the store resolves `session/event` listeners on the append hot
 * path (spec 01 §3.1 step 11). What it relies on is true of `@deepseek-ai/cordis` 4.0.4 and is probed when a store
 * starts; when the probe fails, the store resolves listeners through the public `ctx.events.dispatch` instead, with
 * the same calls, order, containment and `internal/dispatch` veto, only slower.
 *
 * The fast path. Cordis wraps every callback given to `ctx.on` in a tracing proxy (`ReflectService.bind`) whose
 * `apply` trap passes `this` and each argument through `getTraceable` before calling the original. For the values
 * the store passes — a `Session` and a frozen plain event, neither of which carries a Cordis tracker or shadow — that
 * tracing returns its argument unchanged, so calling the original with the same `this` and arguments is the same
 * call, minus the proxy (about a third of the cost of an append). The original is not reachable from the proxy, so
 * while a store is loaded this module shadows `bind` on the root's reflect instance with a wrapper that calls the
 * prototype's `bind` and remembers proxy → original. While nothing listens to `internal/dispatch`, dispatch would
 * only return every `session/event` hook (a session carries no context filter), so the listeners are read from the
 * bus's hook list (`_hooks`), cached until that list changes. Registration, ordering, `prepend` and fiber-bound
 * disposal stay Cordis's. A listener registered before any store was loaded is called through its proxy.
 */

import { type Context, type EventsService, symbols } from '@deepseek-ai/cordis'
import type { Dispatcher, Listener } from './contain.ts'

/** How a store reaches its listeners. */
export interface StoreEvents {
  /** Cordis dispatch for the store's other events (`session/created`, `session/flush`, `session/disposed`). */
  readonly bus: Dispatcher
  /** Why the fast path is off, or `undefined` while it is on. */
  readonly fallback: string | undefined
  /**
   * The `session/event` listeners for one append, as Cordis dispatch resolves them (may throw, e.g. from an
   * `internal/dispatch` hook); each is called with `this = session` and `(session, event)`.
   */
  sessionEventListeners(session: object, event: object): readonly Listener[]
  /** Stop remembering originals for this store (the root's last store removes the `bind` shadow). */
  dispose(): void
}

type Hook = { readonly callback: Listener }
type RawEvents = EventsService & { readonly _hooks: Record<string, Hook[] | undefined> }
type BindHost = { bind?: unknown }

const NO_LISTENERS: readonly Listener[] = Object.freeze([])

/** Tracing proxy → the callback it wraps; weak, so a disposed hook's entry goes with it. */
const originals = new WeakMap<Listener, Listener>()

/** One shadowing `bind` per root reflect instance, shared by every store loaded on that root. */
interface Install {
  readonly wrapper: unknown
  count: number
}
const installs = new WeakMap<object, Install>()

function unwrapped<T extends object>(value: T): T {
  return (value as T & { readonly [key: symbol]: T | undefined })[symbols.original] ?? value
}

/** The callback a Cordis hook wraps, when it was registered while a store was loaded; otherwise the hook's own. */
export function originalListener(callback: Listener): Listener {
  return originals.get(callback) ?? callback
}

/** What the fast path needs of `ctx`'s root, or why it cannot have it. */
function probe(ctx: Context): { readonly bus: RawEvents; readonly host: BindHost } | string {
  if (typeof symbols.original !== 'symbol') return 'symbols.original is missing'
  const bus = unwrapped(ctx.root.events) as RawEvents
  const hooks: unknown = bus._hooks
  if (typeof hooks !== 'object' || hooks === null) return 'the event bus has no _hooks table'
  // Cordis registers its own `internal/listener` hook at start-up: its record shows the hook layout.
  const sample: unknown = (hooks as Record<string, unknown>)['internal/listener']
  if (!Array.isArray(sample) || typeof (sample[0] as Partial<Hook> | undefined)?.callback !== 'function') {
    return 'the event bus hook records have no callback'
  }
  const host = unwrapped(ctx.root.reflect) as object as BindHost
  if (typeof host.bind !== 'function') return 'the reflect service has no bind method'
  const own = Object.hasOwn(host, 'bind')
  if (own && installs.get(host)?.wrapper !== host.bind) return 'the reflect service bind is replaced by another module'
  return { bus, host }
}

/** Shadow `bind` on `host` (or count one more user of the shadow); returns the release, or undefined if it fails. */
function trackOriginals(host: BindHost): (() => void) | undefined {
  let install = installs.get(host)
  if (install === undefined) {
    const bind = host.bind as (this: unknown, callback: Listener) => unknown
    const wrapper = function (this: unknown, callback: Listener): unknown {
      const proxy: unknown = bind.call(this, callback)
      if (typeof proxy === 'function' && typeof callback === 'function') originals.set(proxy as Listener, callback)
      return proxy
    }
    Object.defineProperty(host, 'bind', { value: wrapper, writable: true, enumerable: false, configurable: true })
    install = { wrapper, count: 0 }
    installs.set(host, install)
  }
  const current = install
  current.count++
  let done = false
  const release = (): void => {
    if (done) return
    done = true
    if (--current.count > 0) return
    installs.delete(host)
    if (host.bind === current.wrapper && Object.hasOwn(host, 'bind')) delete host.bind
  }
  // The shadow must see what `bind` returns: one call with a fresh callback shows it does.
  const marker: Listener = () => undefined
  const proxy = (host.bind as (callback: Listener) => unknown).call(host, marker)
  if (typeof proxy === 'function' && originals.get(proxy as Listener) === marker) return release
  release()
  return undefined
}

class FastPath implements StoreEvents {
  readonly fallback = undefined
  /** The hook callbacks `listeners` was built from, to tell when Cordis's hook list changed. */
  private hooks: readonly Listener[] = NO_LISTENERS
  private listeners: readonly Listener[] = NO_LISTENERS

  constructor(readonly bus: RawEvents, readonly dispose: () => void) {}

  sessionEventListeners(session: object, event: object): readonly Listener[] {
    const hooks = this.bus._hooks
    const observers = hooks['internal/dispatch']
    if (observers !== undefined && observers.length > 0) {
      return this.bus.dispatch('emit', [session, 'session/event', session, event]) as Listener[]
    }
    const list = hooks['session/event']
    if (list === undefined || list.length === 0) return NO_LISTENERS
    const seen = this.hooks
    let same = seen.length === list.length
    for (let i = 0; same && i < list.length; i++) same = seen[i] === list[i]!.callback
    if (same) return this.listeners
    const callbacks: Listener[] = []
    const listeners: Listener[] = []
    for (const hook of list) {
      callbacks.push(hook.callback)
      listeners.push(originalListener(hook.callback))
    }
    this.hooks = callbacks
    return this.listeners = Object.freeze(listeners)
  }
}

class PublicPath implements StoreEvents {
  constructor(readonly bus: EventsService, readonly fallback: string) {}

  sessionEventListeners(session: object, event: object): readonly Listener[] {
    return this.bus.dispatch('emit', [session, 'session/event', session, event]) as Listener[]
  }

  dispose(): void {}
}

/**
 * The listener access of one store on `ctx`'s root: the fast path when the probe finds what it needs, else the
 * public dispatch (the reason is in `fallback`). Call `dispose` when the store stops.
 */
export function storeEvents(ctx: Context): StoreEvents {
  const found = probe(ctx)
  if (typeof found === 'string') return new PublicPath(ctx.root.events, found)
  const release = trackOriginals(found.host)
  if (release === undefined) return new PublicPath(ctx.root.events, 'the reflect service bind does not return a proxy')
  return new FastPath(found.bus, release)
}
