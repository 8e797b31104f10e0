/**
 * `logbook show <id> [--surface | --log | --json]` (spec 03 §6.2), read mode: the transcript of append-origin
 * messages (shadowed ones included, compactions and end-seeds as marker lines), the next request's content, one
 * line per event, or the raw events one per line.
 */

import { expectPositionals } from '../args.ts'
import { sessionIdArg, withApp, type Command } from '../command.ts'
import { usageError } from '../errors.ts'
import { logLine } from '../render/log.ts'
import { surfaceLines } from '../render/surface.ts'
import { TranscriptRenderer } from '../render/transcript.ts'
import { readStored } from './stored.ts'

/** `show`. */
export const show: Command = async (context) => {
  const { args, output } = context
  const [raw] = expectPositionals(args, ['id'])
  const id = sessionIdArg(raw!)
  const modes = [args.options.surface === true && '--surface', args.options.log === true && '--log', args.global.json && '--json']
    .filter((mode): mode is string => mode !== false)
  if (modes.length > 1) throw usageError(`${modes.join(' and ')} cannot be combined`)
  return withApp(context, async (app) => {
    const { header, events } = await readStored(app.persistence(), id)
    if (args.global.json) {
      for (const event of events) output.line(JSON.stringify(event))
    } else if (args.options.log === true) {
      for (const event of events) output.line(logLine(event))
    } else if (args.options.surface === true) {
      for (const line of surfaceLines(events)) output.line(line)
    } else {
      for (const line of new TranscriptRenderer(header).all(events)) output.line(line)
    }
    return 0
  })
}
