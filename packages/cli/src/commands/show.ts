/**
 * `logbook show <id> [--surface | --log | --json | --projections [--json]] [--at <seq>]` (spec 03 §6.2), read mode:
 * the transcript of append-origin messages (shadowed ones included, compactions and end-seeds as marker lines), the
 * next request's content, one line per event, the raw events one per line, or the view of every registered
 * projection; `--at` starts the transcript, the lines or the raw events at that event.
 */

import type { ClaimState } from '@logbook/session-persistence'
import type { App } from '../app/app.ts'
import { expectPositionals, integerOption } from '../args.ts'
import { json, sessionIdArg, withApp, type Command } from '../command.ts'
import { CliError, usageError } from '../errors.ts'
import type { Output } from '../io.ts'
import { logLine } from '../render/log.ts'
import { projectionLines } from '../render/projections.ts'
import { surfaceLines } from '../render/surface.ts'
import { marker, TranscriptRenderer } from '../render/transcript.ts'
import { readStored } from './stored.ts'

/**
 * The last line of a transcript whose turn is open: a viewer only reads, so it never closes the turn; a live
 * writer's turn is running, any other is what a resume will close as interrupted.
 */
function openTurnNote(turn: number, claim: ClaimState): string {
  return claim === 'none'
    ? `turn ${turn} is open; its writer stopped, and a resume closes it as interrupted`
    : `turn ${turn} is running`
}

/** Every registered projection's view of the stored session `id` (a cold snapshot: nothing is written). */
async function showProjections(app: App, output: Output, id: string, asJson: boolean): Promise<number> {
  const projections = app.projections()
  if (projections === undefined) {
    throw new CliError('NOT_CONFIGURED', 'projections are not configured (no plugin provides ctx.sessionProjections)')
  }
  const snapshot = await projections.coldSnapshot(id)
  if (asJson) output.line(json(snapshot))
  else for (const line of projectionLines(snapshot)) output.line(line)
  return 0
}

/**
 * The first seq to print for `--at` (0 without it).
 * @throws CliError `USAGE` when it is past the last of `length` events.
 */
function startOf(at: number | undefined, length: number, id: string): number {
  const from = at ?? 0
  if (from > 0 && from >= length) throw usageError(`--at ${from} is past the end of session "${id}" (${length} events)`)
  return from
}

/** `show`. */
export const show: Command = async (context) => {
  const { args, output } = context
  const [raw] = expectPositionals(args, ['id'])
  const id = sessionIdArg(raw!)
  const projections = args.options.projections === true
  // --json is a mode of its own, or the form of --projections.
  const modes = [
    args.options.surface === true && '--surface', args.options.log === true && '--log', projections && '--projections',
    args.global.json && !projections && '--json',
  ].filter((mode): mode is string => mode !== false)
  if (modes.length > 1) throw usageError(`${modes.join(' and ')} cannot be combined`)
  const at = typeof args.options.at === 'string' ? integerOption(args.options.at, 'at', 0) : undefined
  if (at !== undefined && (args.options.surface === true || projections)) {
    throw usageError(`--at cannot be combined with ${projections ? '--projections' : '--surface'}`)
  }
  return withApp(context, async (app) => {
    if (projections) return showProjections(app, output, id, args.global.json)
    const transcript = !args.global.json && args.options.log !== true && args.options.surface !== true
    if (transcript) {
      // The transcript reads through inspect, which also says whether a live writer holds an open turn.
      const inspection = await app.persistence().inspect(id)
      const from = startOf(at, inspection.events.length, id)
      // Earlier events still go through the renderer: later marker lines need what they recorded.
      const renderer = new TranscriptRenderer(inspection.header)
      if (from > 0) output.line(marker(`from seq ${from} of ${inspection.events.length}`))
      for (const event of inspection.events) {
        const lines = renderer.lines(event)
        if (event.seq >= from) for (const line of lines) output.line(line)
      }
      if (inspection.openTurn !== null) output.line(marker(openTurnNote(inspection.openTurn, inspection.claim)))
      return 0
    }
    const { events } = await readStored(app.persistence(), id)
    const from = startOf(at, events.length, id)
    if (args.global.json) {
      for (let seq = from; seq < events.length; seq++) output.line(JSON.stringify(events[seq]))
    } else if (args.options.log === true) {
      for (let seq = from; seq < events.length; seq++) output.line(logLine(events[seq]!))
    } else {
      for (const line of surfaceLines(events)) output.line(line)
    }
    return 0
  })
}
