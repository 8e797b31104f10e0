/**
 * The CLI's Cordis log exporter (spec 03 §6.1): every record becomes one line on stderr, never stdout (which is
 * why the CLI does not load logger-console). Errors and warnings show by default, `--quiet` keeps errors only,
 * `LOGBOOK_DEBUG=1` adds info and debug records and keeps stacks. While held, records are buffered so that a
 * failed boot can print its one line per entry instead of the loader's stack traces.
 */

import { type Context, Logger, type Message } from '@deepseek-ai/cordis'
import { oneLine } from './errors.ts'
import type { Output } from './io.ts'

/** A handle on the installed exporter. */
export interface StderrLogExporter {
  /** Buffer records instead of printing them. */
  hold(): void
  /** Print the buffered records and stop buffering. */
  release(): void
  /** Drop the buffered records (already reported another way) and stop printing anything but debug output. */
  discard(): void
  /** Remove the exporter. */
  dispose(): Promise<void> | void
}

function visible(output: Output, type: Message['type']): boolean {
  if (output.debug) return true
  if (type === 'error') return true
  return type === 'warn' && !output.quiet
}

/** Install the exporter on `ctx`'s logger. */
export function installLogExporter(ctx: Context, output: Output): StderrLogExporter {
  let held: Message[] | undefined
  let muted = false
  const exporter = {
    colors: false as const,
    levels: { default: 3 },
    export: (message: Message): void => {
      if (!visible(output, message.type)) return
      if (held !== undefined) {
        held.push(message)
        return
      }
      if (muted && !output.debug) return
      print(message)
    },
  }
  const print = (message: Message): void => {
    const [first] = message.args
    const body = output.debug
      ? Logger.format(exporter, message).split('\n').join('\n  ')
      : first instanceof Error ? oneLine(first) : oneLine(Logger.format(exporter, message))
    output.streams.stderr.write(`logbook: ${message.type} ${message.name}: ${body}\n`)
  }
  const dispose = ctx.logger.exporter(exporter)
  return {
    hold: () => {
      held ??= []
    },
    release: () => {
      const messages = held ?? []
      held = undefined
      for (const message of messages) print(message)
    },
    discard: () => {
      if (output.debug) for (const message of held ?? []) print(message)
      held = undefined
      muted = true
    },
    dispose: () => dispose(),
  }
}
