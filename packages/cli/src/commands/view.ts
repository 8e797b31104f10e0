/**
 * `logbook view [--port <n>] [--config <yml>]`: the session viewer in a browser. It loads `@logbook/session-viewer`
 * into the app (or uses the app's own `session-viewer` entry) with `@logbook/session-search` for its search box,
 * prints the address with its one-time token on stdout, and serves until Ctrl-C. The viewer only reads: sessions are
 * opened in read mode, and nothing is written to the store (the search index is the search plugin's own file).
 */

import type { Fiber } from '@deepseek-ai/cordis'
import { messageOf } from '@logbook/session'
import SessionViewer from '@logbook/session-viewer'
import type { App } from '../app/app.ts'
import { expectPositionals, integerOption } from '../args.ts'
import { untilAborted, withApp, type Command, type CommandContext } from '../command.ts'
import { usageError } from '../errors.ts'

/** Loads the viewer on `port`; a taken port fails it with LISTEN_FAILED, reported once as the command's line. */
async function loadViewer(app: App, port: number): Promise<Fiber> {
  app.log.hold()
  const fiber = app.ctx.plugin(SessionViewer, { port })
  try {
    await fiber
  } catch (error) {
    app.log.discard()
    await fiber.dispose()
    throw error
  }
  app.log.release()
  return fiber
}

/**
 * Makes sure the app has `ctx.sessionSearch` for the search box (the embedded app loads it; a config app without it
 * gets it with its defaults). A store search cannot index beside (`INDEX_PATH_REQUIRED`) is one note on stderr: the
 * viewer serves without search, and its search page says so.
 */
async function loadSearch(app: App, output: CommandContext['output']): Promise<void> {
  app.log.hold()
  try {
    await app.search()
    app.log.release()
  } catch (error) {
    app.log.discard()
    output.diag(`search is not available in the viewer: ${messageOf(error)}`)
  }
}

/** `view`. */
export const view: Command = async (context) => {
  const { args, output } = context
  expectPositionals(args, [])
  const port = typeof args.options.port === 'string' ? integerOption(args.options.port, 'port', 0, 65535) : undefined
  return withApp(context, async (app) => {
    app.persistence()
    const own = app.ctx.get('sessionViewer')
    if (own !== undefined && port !== undefined) throw usageError('--port cannot be used: the app serves the viewer itself (its session-viewer entry sets the port)')
    await loadSearch(app, output)
    const fiber = own === undefined ? await loadViewer(app, port ?? 0) : undefined
    try {
      output.line(app.ctx.get('sessionViewer')!.url())
      output.diag('serving the session viewer on 127.0.0.1; open the address above (it works once), Ctrl-C stops')
      await untilAborted(context.signal)
      return 0
    } finally {
      await fiber?.dispose()
    }
  })
}
