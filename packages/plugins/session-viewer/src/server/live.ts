/**
 * Live pages: server-sent events fed by following the store. While a session page is open, its session is read
 * from its next seq every `intervalMs` (skipped while the stored artifact is unchanged); each open page gets the HTML
 * of the turns and surface groups holding events it has not seen, or `reload` when a replace moved surface nodes
 * or the stored session was re-created, or `gone` when it was deleted. No page ever polls the whole session.
 */

import type { ServerResponse } from 'node:http'
import { isSessionPersistenceError } from '@logbook/session-persistence'
import type { SessionView } from '../model/session-view.ts'
import type { SessionCache } from './session-cache.ts'

/** One `update` message: the pieces that changed, by element id, and the page's new last seq. */
export interface LiveUpdate {
  readonly head: string
  readonly log: readonly { readonly id: string; readonly html: string }[]
  readonly surface: readonly { readonly id: string; readonly html: string }[]
  readonly nextSeq: number
}

/** Renders the update for a page that has seen the events before `after`. */
export type UpdateRenderer = (view: SessionView, after: number) => LiveUpdate

interface Client {
  readonly response: ServerResponse
  after: number
  view: SessionView | undefined
}

interface Follower {
  readonly clients: Set<Client>
  timer: ReturnType<typeof setTimeout> | undefined
  stopped: boolean
}

/** Writes one server-sent event. */
function send(response: ServerResponse, event: string, data: unknown): void {
  response.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
}

/** The followers of every open session page. */
export class LiveHub {
  private readonly followers = new Map<string, Follower>()
  private readonly running = new Set<Promise<void>>()

  constructor(
    private readonly cache: SessionCache,
    private readonly render: UpdateRenderer,
    private readonly intervalMs: number,
    private readonly warn: (message: string) => void,
  ) {}

  /** Streams updates of session `id` to `response`, starting after the events before `after`. */
  attach(id: string, response: ServerResponse, after: number): void {
    response.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no' })
    response.write('retry: 1000\n\n')
    let follower = this.followers.get(id)
    if (follower === undefined) {
      follower = { clients: new Set(), timer: undefined, stopped: false }
      this.followers.set(id, follower)
    }
    const client: Client = { response, after, view: this.cache.held(id) }
    follower.clients.add(client)
    const current = follower
    response.on('close', () => {
      current.clients.delete(client)
      if (current.clients.size === 0) this.stop(id, current)
    })
    // The page may have been rendered before events that are already held: send them now.
    if (client.view !== undefined) this.deliver(client, client.view)
    if (current.timer === undefined) this.schedule(id, current)
  }

  /** Number of sessions being followed (for tests and status). */
  get following(): number {
    return this.followers.size
  }

  /** Resolves when the reads started by timers so far have been delivered. */
  async settled(): Promise<void> {
    await Promise.all([...this.running])
  }

  /** Ends every stream and stops every timer. */
  close(): void {
    for (const [id, follower] of this.followers) {
      for (const client of follower.clients) client.response.end()
      this.stop(id, follower)
    }
  }

  private stop(id: string, follower: Follower): void {
    follower.stopped = true
    if (follower.timer !== undefined) clearTimeout(follower.timer)
    follower.timer = undefined
    if (this.followers.get(id) === follower) this.followers.delete(id)
  }

  private schedule(id: string, follower: Follower): void {
    if (follower.stopped) return
    follower.timer = setTimeout(() => {
      const run = this.tick(id, follower)
      this.running.add(run)
      void run.finally(() => this.running.delete(run))
    }, this.intervalMs)
  }

  private async tick(id: string, follower: Follower): Promise<void> {
    try {
      const { view } = await this.cache.fresh(id)
      for (const client of follower.clients) this.deliver(client, view)
    } catch (error) {
      if (isSessionPersistenceError(error, 'SESSION_NOT_FOUND')) {
        for (const client of follower.clients) {
          send(client.response, 'gone', { message: `session "${id}" is no longer stored` })
          client.response.end()
        }
        this.stop(id, follower)
        return
      }
      this.warn(`following session "${id}" failed: ${error instanceof Error ? error.message : String(error)}`)
    }
    this.schedule(id, follower)
  }

  /** Sends `client` what it has not seen of `view`. */
  private deliver(client: Client, view: SessionView): void {
    if (client.view !== undefined && client.view !== view) {
      send(client.response, 'reload', {})
      client.view = view
      return
    }
    client.view = view
    if (view.nextSeq <= client.after) return
    if (view.lastReplaceSeq >= client.after) send(client.response, 'reload', {})
    else send(client.response, 'update', this.render(view, client.after))
    client.after = view.nextSeq
  }
}
