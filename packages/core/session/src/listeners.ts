/**
 * Direct listener calls for the append hot path (spec 01 §3.1 step 11).
 *
 * Cordis wraps every callback given to `ctx.on` in a tracing proxy (`ReflectService.bind`) whose `apply` trap passes
 * `this` and each argument through `getTraceable` before calling the original. For the values the store passes — a
 * `Session` and a frozen plain event, neither of which carries a Cordis tracker or shadow — that tracing returns its
 * argument unchanged, so calling the original callback with the same `this` and arguments is the same call, minus the
 * proxy (about 0.75 µs per call, a third of the cost of an append).
 *
 * The original is not reachable from the proxy, so while a store is loaded this module shadows `bind` on its root
 * `ReflectService` instance with a wrapper that calls the prototype's `bind` unchanged and remembers proxy →
 * original. Registration, ordering, `prepend`, fiber-bound disposal and the hook list itself stay Cordis's: the
 * store still reads the listeners from that list and only swaps each remembered proxy for its original when calling.
 * A listener registered before any store was loaded is simply called through its proxy.
 */

import { type Context, symbols } from '@deepseek-ai/cordis'

type Callback = (...args: unknown[]) => unknown
type BindHost = { bind?: unknown }

/** Tracing proxy → the callback it wraps; weak, so a disposed hook's entry goes with it. */
const originals = new WeakMap<Callback, Callback>()

/** One shadowing `bind` per root reflect instance, shared by every store loaded on that root. */
interface Install {
  readonly wrapper: unknown
  count: number
}
const installs = new WeakMap<object, Install>()

function unwrapped<T extends object>(value: T): T {
  return (value as T & { readonly [key: symbol]: T | undefined })[symbols.original] ?? value
}

/**
 * @internal Start remembering the originals of listeners registered on `ctx`'s root from now on; returns the disposer (the
 * shadow is removed when the last store of that root stops). When the reflect service does not look as expected
 * (no inherited `bind` method), nothing is installed and every listener is called through its proxy.
 */
export function trackListenerOriginals(ctx: Context): () => void {
  const host = unwrapped(ctx.root.reflect) as object as BindHost
  let install: Install | undefined = installs.get(host)
  if (install === undefined) {
    const bind = host.bind
    if (typeof bind !== 'function' || Object.hasOwn(host, 'bind')) return () => {}
    const wrapper = function (this: unknown, callback: Callback): unknown {
      const proxy: unknown = bind.call(this, callback)
      if (typeof proxy === 'function' && typeof callback === 'function') originals.set(proxy as Callback, callback)
      return proxy
    }
    Object.defineProperty(host, 'bind', { value: wrapper, writable: true, enumerable: false, configurable: true })
    install = { wrapper, count: 0 }
    installs.set(host, install)
  }
  const current: Install = install
  current.count++
  let done = false
  return () => {
    if (done) return
    done = true
    if (--current.count > 0) return
    installs.delete(host)
    if (host.bind === current.wrapper && Object.hasOwn(host, 'bind')) delete host.bind
  }
}

/** @internal The callback a Cordis hook wraps, when it was registered while a store was loaded; otherwise the hook's own. */
export function originalListener(callback: Callback): Callback {
  return originals.get(callback) ?? callback
}
