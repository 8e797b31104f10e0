/**
 * `ctx.sessionViewer`: the viewer as a Cordis Service. Its start listens on 127.0.0.1 (a failure fails the plugin);
 * its disposal ends live streams, closes connections and read handles. State lives on the server object, because
 * Cordis hands callers a tracing proxy of the service.
 */
import { type Context, Service } from '@deepseek-ai/cordis'
import * as Compaction from '@logbook/compaction'
import type {} from '@logbook/session-persistence'
import type { SessionProjections } from '@logbook/session-projection'
import { SessionViewerConfigSchema } from './config.ts'
import { ViewerServer } from './server/server.ts'
import type { SessionViewerConfig, ViewerSearch } from './types.ts'

declare module '@deepseek-ai/cordis' {
  interface Context {
    sessionViewer: SessionViewer
  }
}

/**
 * A read-only browser view of every stored session, served on 127.0.0.1 behind a one-time token. It never writes to
 * a store: sessions are opened with `open(id, 'read')` and followed from their next seq. It registers the compaction
 * event types (which it renders) for as long as it is loaded.
 * @throws (at plugin start) SessionViewerError `LISTEN_FAILED` when the port cannot be used; invalid config fails
 * with Cordis's `ValidationError`.
 */
export class SessionViewer extends Service {
  static inject = ['sessions', 'sessionPersistence']
  static Config = SessionViewerConfigSchema

  /** @internal The server; not part of the public API. */
  readonly server: ViewerServer

  constructor(ctx: Context, config: SessionViewerConfig) {
    super(ctx, 'sessionViewer')
    // The viewer renders compaction brackets, so logs holding them must be readable without the compaction plugin.
    ctx.plugin(Compaction)
    const logger = ctx.logger('session-viewer')
    this.server = new ViewerServer({
      persistence: () => ctx.sessionPersistence,
      projections: () => ctx.get('sessionProjections') as SessionProjections | undefined,
      search: () => ctx.get('sessionSearch') as ViewerSearch | undefined,
      warn: message => logger.warn(message),
    }, config)
    this.logger = logger
    const server = this.server
    ctx.effect(() => () => server.close(), 'session-viewer server')
  }

  private readonly logger: ReturnType<Context['logger']>

  /** Plugin start: resolves once the server listens (logged without the token, which only `url()` hands out). */
  async [Service.init](): Promise<void> {
    const port = await this.server.listen()
    this.logger.info(`listening on http://127.0.0.1:${port}/`)
  }

  /**
   * The address to open in a browser: it carries the one-time token until a browser used it, then it does not.
   * @throws SessionViewerError `NOT_LISTENING` before the plugin started or after it was disposed.
   */
  url(): string {
    return this.server.url()
  }
}
