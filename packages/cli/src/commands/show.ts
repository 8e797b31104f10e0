/**
 * `logbook show <id> [--surface | --log | --json] [--at <seq>]` (spec 03 §6.2), read mode: the transcript of
 * append-origin messages (shadowed ones included, compactions and end-seeds as marker lines), the next request's
 * content, one line per event, or the raw events one per line; `--at` starts the output at that event.
 */

import { expectPositionals, integerOption } from '../args.ts'
import { sessionIdArg, withApp, type Command } from '../command.ts'
import { usageError } from '../errors.ts'
import { logLine } from '../render/log.ts'
import { surfaceLines } from '../render/surface.ts'
import { marker, TranscriptRenderer } from '../render/transcript.ts'
import { readStored } from './stored.ts'

/** `show`. */
export const show: Command = async (context) => {
  const { args, output } = context
  const [raw] = expectPositionals(args, ['id'])
  const id = sessionIdArg(raw!)
  const modes = [args.options.surface === true && '--surface', args.options.log === true && '--log', args.global.json && '--json']
    .filter((mode): mode is string => mode !== false)
  if (modes.length > 1) throw usageError(`${modes.join(' and ')} cannot be combined`)
  const at = typeof args.options.at === 'string' ? integerOption(args.options.at, 'at', 0) : undefined
  if (at !== undefined && args.options.surface === true) throw usageError('--at cannot be combined with --surface')
  return withApp(context, async (app) => {
    const { header, events } = await readStored(app.persistence(), id)
    const from = at ?? 0
    if (from > 0 && from >= events.length) throw usageError(`--at ${from} is past the end of session "${id}" (${events.length} events)`)
    if (args.global.json) {
      for (let seq = from; seq < events.length; seq++) output.line(JSON.stringify(events[seq]))
    } else if (args.options.log === true) {
      for (let seq = from; seq < events.length; seq++) output.line(logLine(events[seq]!))
    } else if (args.options.surface === true) {
      for (const line of surfaceLines(events)) output.line(line)
    } else {
      // Earlier events still go through the renderer: later marker lines need what they recorded.
      const renderer = new TranscriptRenderer(header)
      if (from > 0) output.line(marker(`from seq ${from} of ${events.length}`))
      for (const event of events) {
        const lines = renderer.lines(event)
        if (event.seq >= from) for (const line of lines) output.line(line)
      }
    }
    return 0
  })
}
