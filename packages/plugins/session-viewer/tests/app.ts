/**
 * A real app for the server tests: the session store, JSONL persistence in a temporary folder, projections and the
 * viewer on a free port of 127.0.0.1 (with `search`, the search plugin too); sessions are stored straight through the
 * persistence seam.
 */

import { mkdtempSync, rmSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from '@deepseek-ai/cordis'
import SessionStore, { type SessionEvent, type SessionHeader } from '@logbook/session'
import type { SessionPersistence } from '@logbook/session-persistence'
import JsonlSessionPersistence from '@logbook/session-persistence-jsonl'
import SqliteSessionPersistence from '@logbook/session-persistence-sqlite'
import SessionProjections from '@logbook/session-projection'
import SessionSearch from '@logbook/session-search'
import SessionViewer, { type SessionViewerConfig } from '../src/index.ts'

/** A running viewer app. */
export interface ViewerApp {
  readonly ctx: Context
  readonly root: string
  readonly persistence: SessionPersistence
  readonly viewer: SessionViewer
  /** The printed address, with its token. */
  readonly url: string
  /** `http://127.0.0.1:<port>`. */
  readonly base: string
  store(header: SessionHeader, events: readonly SessionEvent[]): Promise<void>
  stop(): Promise<void>
}

/** Start the app on a fresh folder (or `root`): a JSONL root there, or a SQLite database in it. */
export async function startViewer(options: { root?: string; backend?: 'jsonl' | 'sqlite'; config?: Partial<SessionViewerConfig>; search?: boolean } = {}): Promise<ViewerApp> {
  const root = options.root ?? mkdtempSync(join(tmpdir(), 'logbook-viewer-'))
  const ctx = new Context()
  const fibers: { dispose(): Promise<unknown> }[] = []
  const load = async (plugin: any, config?: unknown): Promise<void> => {
    const fiber = ctx.plugin(plugin, config)
    fibers.push(fiber)
    await fiber
  }
  await load(SessionStore)
  if (options.backend === 'sqlite') await load(SqliteSessionPersistence, { path: join(root, 'logbook.sqlite') })
  else await load(JsonlSessionPersistence, { root, durability: 'none' })
  await load(SessionProjections)
  // The search index lives in memory, so the store's folder holds only what persistence wrote.
  if (options.search === true) await load(SessionSearch, { path: ':memory:', reconcileIntervalMs: 0 })
  await load(SessionViewer, options.config ?? {})
  const viewer = ctx.get('sessionViewer')!
  const url = viewer.url()
  const persistence = ctx.get('sessionPersistence')!
  return {
    ctx, root, persistence, viewer, url, base: new URL(url).origin,
    async store(header, events) {
      const handle = await persistence.create(header)
      try {
        await handle.append(events)
      } finally {
        await handle.close()
      }
    },
    async stop() {
      for (const fiber of fibers.reverse()) await fiber.dispose()
      if (options.root === undefined) rmSync(root, { recursive: true, force: true })
    },
  }
}

/** Swap the token for the cookie, as a browser does; returns the `Cookie` header value. */
export async function signIn(app: ViewerApp): Promise<string> {
  const response = await fetch(app.url, { redirect: 'manual' })
  const cookie = response.headers.get('set-cookie')
  if (response.status !== 303 || cookie === null) throw new Error(`sign-in answered ${response.status}`)
  return cookie.split(';')[0]!
}

/** GET `path` with the cookie. */
export async function get(app: ViewerApp, cookie: string, path: string): Promise<{ status: number; text: string; headers: Headers }> {
  const response = await fetch(`${app.base}${path}`, { headers: { cookie }, redirect: 'manual' })
  return { status: response.status, text: await response.text(), headers: response.headers }
}

/** A raw request with any `Host` header (fetch does not let one be set). */
export function rawGet(app: ViewerApp, path: string, headers: Record<string, string>): Promise<number> {
  const { port } = new URL(app.base)
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers }, res => {
      res.resume()
      resolve(res.statusCode ?? 0)
    })
    req.on('error', reject)
    req.end()
  })
}
