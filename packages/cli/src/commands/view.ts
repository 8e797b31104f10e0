/**
 * `logbook view [--port <n>] [--config <yml>]`: the session viewer in a browser. It loads `@logbook/session-viewer`
 * into the app (or uses the app's own `session-viewer` entry), prints the address with its one-time token on stdout,
 * and serves until Ctrl-C. The viewer only reads: sessions are opened in read mode, and nothing is written to the
 * store.
 */

import type { Fiber } from '@deepseek-ai/cordis'
import SessionViewer from '@logbook/session-viewer'
import type { App } from '../app/app.ts'
import { expectPositionals, integerOption } from '../args.ts'
import { untilAborted, withApp, type Command } from '../command.ts'
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

/** `view`. */
export const view: Command = async (context) => {
  const { args, output } = context
  expectPositionals(args, [])
  const port = typeof args.options.port === 'string' ? integerOption(args.options.port, 'port', 0, 65535) : undefined
  return withApp(context, async (app) => {
    app.persistence()
    const own = app.ctx.get('sessionViewer')
    if (own !== undefined && port !== undefined) throw usageError('--port cannot be used: the app serves the viewer itself (its session-viewer entry sets the port)')
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
