/**
 * `logbook view [--port <n>] [--config <yml>]`: the session viewer in a browser. It loads `@logbook/session-viewer`
 * into the app, prints the address (with its one-time token) on stdout, and serves until Ctrl-C. The viewer only
 * reads: sessions are opened in read mode, and nothing is written to the store.
 */

import SessionViewer from '@logbook/session-viewer'
import { expectPositionals, integerOption } from '../args.ts'
import { untilAborted, withApp, type Command } from '../command.ts'

/** `view`. */
export const view: Command = async (context) => {
  const { args, output } = context
  expectPositionals(args, [])
  const port = typeof args.options.port === 'string' ? integerOption(args.options.port, 'port', 0, 65535) : 0
  return withApp(context, async (app) => {
    app.persistence()
    // A taken port fails the plugin with LISTEN_FAILED: reported once, as the command's error line (exit 1).
    app.log.hold()
    const fiber = app.ctx.plugin(SessionViewer, { port })
    try {
      try {
        await fiber
      } catch (error) {
        app.log.discard()
        throw error
      }
      app.log.release()
      output.line(app.ctx.get('sessionViewer')!.url())
      output.diag('serving the session viewer on 127.0.0.1; open the address above (it works once), Ctrl-C stops')
      await untilAborted(context.signal)
      return 0
    } finally {
      await fiber.dispose()
    }
  })
}
