/**
 * Who may read: the holder of the one-time token in the URL the viewer printed. The first request carrying it gets
 * an HttpOnly, SameSite=Strict cookie and a redirect to the same address without the token, so the token neither
 * works twice nor stays in the browser's history. Every other request needs the cookie; a `Host` other than this
 * server's own loopback address is refused too, so a page elsewhere cannot reach the viewer through DNS rebinding.
 */

import { randomBytes, timingSafeEqual } from 'node:crypto'
import type { IncomingMessage } from 'node:http'

/** The cookie that carries access after the token was swapped. */
export const COOKIE_NAME = 'logbook_viewer'

/** What a request may do. */
export type AccessDecision =
  | { readonly kind: 'allow' }
  /** The token is right: set `cookie` and redirect to `location`. */
  | { readonly kind: 'swap'; readonly cookie: string; readonly location: string }
  | { readonly kind: 'deny'; readonly reason: string }

function secret(): string {
  return randomBytes(32).toString('base64url')
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

/** The value of cookie `name` in a `Cookie` header. */
function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=')
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim()
  }
  return undefined
}

/** The token, the cookie secret and the check of each request. */
export class AccessGate {
  private token: string | undefined = secret()
  private readonly key = secret()
  private hosts: readonly string[] = []

  /** The token for the printed URL; `undefined` once it was used. */
  get pendingToken(): string | undefined {
    return this.token
  }

  /** The `Host` values this server answers to (`127.0.0.1:<port>`, `localhost:<port>`). */
  listenOn(port: number): void {
    this.hosts = [`127.0.0.1:${port}`, `localhost:${port}`]
  }

  /** The decision for `request` at `url` (already parsed). */
  decide(request: IncomingMessage, url: URL): AccessDecision {
    if (!this.hosts.includes(request.headers.host ?? '')) return { kind: 'deny', reason: `unexpected Host header ${JSON.stringify(request.headers.host ?? '')}` }
    const cookie = cookieValue(request.headers.cookie, COOKIE_NAME)
    const hasCookie = cookie !== undefined && same(cookie, this.key)
    const offered = url.searchParams.get('token')
    if (offered === null) return hasCookie ? { kind: 'allow' } : { kind: 'deny', reason: 'no access cookie' }
    const clean = new URL(url)
    clean.searchParams.delete('token')
    const location = clean.pathname + clean.search
    if (hasCookie) return { kind: 'swap', cookie: this.cookieHeader(), location }
    if (this.token === undefined || !same(offered, this.token)) return { kind: 'deny', reason: 'wrong or used token' }
    this.token = undefined
    return { kind: 'swap', cookie: this.cookieHeader(), location }
  }

  private cookieHeader(): string {
    return `${COOKIE_NAME}=${this.key}; HttpOnly; SameSite=Strict; Path=/`
  }
}
