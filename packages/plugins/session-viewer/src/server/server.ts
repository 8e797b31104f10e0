/**
 * The viewer's HTTP server (`node:http`, on 127.0.0.1 only): the access gate first (403 without the token or its
 * cookie), then the routes — `/` the session list, `/search`, `/session/<id>` and its `/live` event stream, and
 * `/assets/` (the stylesheet and script, served to anyone: they hold no session data; `/favicon.ico` is an empty
 * answer). Only GET and HEAD are
 * answered; every page carries a policy that lets it load nothing but this server's own assets.
 */

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { codeOf, isValidSessionId } from '@logbook/session'
import type { SessionPersistence } from '@logbook/session-persistence'
import type { SessionProjections } from '@logbook/session-projection'
import { lineOf, SessionViewerError } from '../errors.ts'
import { assetText } from '../render/document.ts'
import type { ForkRelatives } from '../render/session-page.ts'
import type { SessionViewerConfig, ViewerSearch } from '../types.ts'
import { AccessGate } from './access.ts'
import { LiveHub } from './live.ts'
import { listPage, liveUpdate, problemPage, searchPage, sessionPage, unknownSession, type PageDeps, type PageResult } from './pages.ts'
import { SessionCache } from './session-cache.ts'

/** The loopback address the viewer listens on, always. */
export const VIEWER_HOST = '127.0.0.1'

/** The policy of every served page. */
export const PAGE_POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; "
  + "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

/** What the server reads from. */
export interface ViewerSources {
  readonly persistence: () => SessionPersistence
  readonly projections: () => SessionProjections | undefined
  readonly search: () => ViewerSearch | undefined
  warn(message: string): void
}

const ASSETS: Readonly<Record<string, { file: 'viewer.css' | 'viewer.js'; type: string }>> = {
  '/assets/viewer.css': { file: 'viewer.css', type: 'text/css; charset=utf-8' },
  '/assets/viewer.js': { file: 'viewer.js', type: 'text/javascript; charset=utf-8' },
}

const COMMON_HEADERS = { 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer', 'Cache-Control': 'no-store' }

/** The viewer server: access gate, pages and live streams over one read-only session cache. */
export class ViewerServer {
  private readonly gate = new AccessGate()
  private readonly cache: SessionCache
  private readonly live: LiveHub
  private readonly deps: PageDeps
  private readonly server: Server
  private readonly sockets = new Set<Socket>()
  private port: number | undefined

  constructor(sources: ViewerSources, private readonly config: SessionViewerConfig) {
    this.cache = new SessionCache(sources.persistence, config.cachedSessions)
    this.deps = { ...sources, cache: this.cache, config, relatives: new Map<string, ForkRelatives>() }
    this.live = new LiveHub(this.cache, (view, after) => liveUpdate(this.deps, view, after), config.pollIntervalMs, sources.warn)
    this.server = createServer((request, response) => void this.handle(request, response))
    this.server.on('connection', socket => {
      this.sockets.add(socket)
      socket.on('close', () => this.sockets.delete(socket))
    })
  }

  /**
   * Listen on 127.0.0.1 at the configured port; resolves to the port.
   * @throws SessionViewerError `LISTEN_FAILED` naming the address and the reason (port taken, not permitted).
   */
  async listen(): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      const fail = (error: Error): void => {
        reject(new SessionViewerError('LISTEN_FAILED', `cannot listen on ${VIEWER_HOST}:${this.config.port}: ${lineOf(error)}`, { cause: error }))
      }
      this.server.once('error', fail)
      this.server.listen(this.config.port, VIEWER_HOST, () => {
        this.server.off('error', fail)
        resolve()
      })
    })
    const address = this.server.address()
    this.port = typeof address === 'object' && address !== null ? address.port : this.config.port
    this.gate.listenOn(this.port)
    return this.port
  }

  /**
   * The address to open: with the one-time token until it was used, then without.
   * @throws SessionViewerError `NOT_LISTENING` before `listen` resolved.
   */
  url(): string {
    if (this.port === undefined) throw new SessionViewerError('NOT_LISTENING', 'the viewer is not listening')
    const token = this.gate.pendingToken
    return `http://${VIEWER_HOST}:${this.port}/${token === undefined ? '' : `?token=${token}`}`
  }

  /** Ends live streams, closes connections and read handles. */
  async close(): Promise<void> {
    this.live.close()
    const closed = new Promise<void>(resolve => this.server.close(() => resolve()))
    for (const socket of this.sockets) socket.destroy()
    this.port = undefined
    await closed
    await this.cache.close()
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    try {
      const url = new URL(request.url ?? '/', `http://${VIEWER_HOST}`)
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        return this.answer(response, problemPage(405, 'Not allowed', `The viewer only reads: ${request.method ?? '?'} is not answered.`), { Allow: 'GET, HEAD' })
      }
      if (url.pathname === '/favicon.ico') {
        response.writeHead(204, COMMON_HEADERS)
        response.end()
        return
      }
      const asset = ASSETS[url.pathname]
      if (asset !== undefined) {
        response.writeHead(200, { ...COMMON_HEADERS, 'Content-Type': asset.type })
        response.end(request.method === 'HEAD' ? undefined : assetText(asset.file))
        return
      }
      const access = this.gate.decide(request, url)
      if (access.kind === 'deny') {
        return this.answer(response, problemPage(403, 'Forbidden', `This viewer opens only through the address it printed when it started (${access.reason}). Open that address, or restart the viewer (logbook view) for a new one.`))
      }
      if (access.kind === 'swap') {
        response.writeHead(303, { ...COMMON_HEADERS, 'Set-Cookie': access.cookie, Location: access.location })
        response.end()
        return
      }
      await this.route(request, response, url)
    } catch (error) {
      this.deps.warn(`request ${request.url ?? ''} failed: ${lineOf(error)}`)
      if (!response.headersSent) this.answer(response, problemPage(500, 'Something went wrong', lineOf(error)))
      else response.end()
    }
  }

  private async route(request: IncomingMessage, response: ServerResponse, url: URL): Promise<void> {
    const { pathname } = url
    if (pathname === '/') return this.answer(response, await listPage(this.deps, url))
    if (pathname === '/search') return this.answer(response, await searchPage(this.deps, url))
    const match = /^\/session\/([^/]+)(\/live)?$/.exec(pathname)
    if (match === null) return this.answer(response, problemPage(404, 'Not found', `There is no page at ${pathname}.`))
    const id = decodeURIComponent(match[1]!)
    if (!isValidSessionId(id)) return this.answer(response, unknownSession(id))
    try {
      if (match[2] === undefined) return this.answer(response, await sessionPage(this.deps, id, url))
      await this.cache.fresh(id)
      const after = Number(url.searchParams.get('after') ?? '0')
      this.live.attach(id, response, Number.isSafeInteger(after) && after >= 0 ? after : 0)
      request.on('close', () => response.end())
    } catch (error) {
      if (codeOf(error) === 'SESSION_NOT_FOUND') return this.answer(response, unknownSession(id))
      throw error
    }
  }

  private answer(response: ServerResponse, page: PageResult, extra: Record<string, string> = {}): void {
    response.writeHead(page.status, {
      ...COMMON_HEADERS, ...extra, 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': PAGE_POLICY,
      'X-Frame-Options': 'DENY',
    })
    response.end(page.html)
  }
}
