/**
 * `logbook run --config cordis.yml [--keep-alive]` (spec 03 §6.2): boot the app (§7), start the configured
 * agents, stream the conversation, wait until every agent is idle, dispose. Exit `0` iff every turn completed.
 */

import { expectPositionals } from '../args.ts'
import { untilAborted, withApp, type Command } from '../command.ts'
import { EXIT, usageError } from '../errors.ts'
import { LiveTranscript } from '../render/live.ts'

/** `run`. */
export const run: Command = async (context) => {
  const { args, output } = context
  if (args.global.config === undefined) throw usageError('run needs --config <file>')
  expectPositionals(args, [])
  return withApp(context, async (app) => {
    const live = new LiveTranscript(output)
    const stop = app.ctx.on('session/event', (session, event) => live.event(session, event))
    try {
      const agents = await app.agents().startConfigured()
      await Promise.all(agents.map(agent => agent.idle()))
      if (args.options['keep-alive'] === true) await untilAborted(context.signal)
    } finally {
      stop()
    }
    return live.turnEnds.every(kind => kind === 'completed') ? EXIT.OK : EXIT.FAILURE
  })
}
