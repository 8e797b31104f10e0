/** A root Cordis app for a test, with every log record it writes captured. */

import { Context, type Exporter, Logger, type Message } from '@deepseek-ai/cordis'

/** What a log capture keeps. */
export interface LogCaptureOptions {
  /**
   * The highest Cordis level kept (0 error, 1 info, 2 warn, 3 debug); default 3, every record. Records above it are
   * not even formatted.
   */
  readonly level?: number
}

/** The records an app logged, in order, as they arrive. */
export interface CapturedLogs {
  /** Each record formatted as Cordis formats it for an exporter without colours (`Logger.format`). */
  readonly lines: string[]
  /** Each record as Cordis delivered it. */
  readonly records: Message[]
}

/** A fresh root app and what it logs. */
export interface TestApp extends CapturedLogs {
  readonly app: Context
  /** The same array as `lines`. */
  readonly logs: string[]
}

/** Capture every record `ctx`'s loggers write from now on, until `ctx`'s fiber is disposed. */
export function captureLogs(ctx: Context, options: LogCaptureOptions = {}): CapturedLogs {
  const lines: string[] = []
  const records: Message[] = []
  const exporter: Exporter = {
    colors: false,
    levels: { default: options.level ?? 3 },
    export: (message) => {
      records.push(message)
      lines.push(Logger.format(exporter, message))
    },
  }
  ctx.logger.exporter(exporter)
  return { lines, records }
}

/** A new root `Context` whose log records are captured; load the plugins under test on `app`. */
export function testApp(options: LogCaptureOptions = {}): TestApp {
  const app = new Context()
  const logs = captureLogs(app, options)
  return { app, logs: logs.lines, ...logs }
}

/** The first argument, as text, of each record of `type` (and of logger `name`, when given), in order. */
export function textsOf(records: readonly Message[], type: Message['type'], name?: string): string[] {
  return records
    .filter(record => record.type === type && (name === undefined || record.name === name))
    .map(record => String(record.args[0]))
}
