/**
 * What every command receives, and the helper that runs it inside an app that is always disposed.
 */

import { isValidSessionId } from '@logbook/session'
import type { App } from './app/app.ts'
import type { EmbeddedOptions, EmbeddedStore } from './app/embedded.ts'
import type { ParsedArgs } from './args.ts'
import { CliError } from './errors.ts'
import type { Output, TextSource } from './io.ts'

/** The environment of one command run. */
export interface CommandContext {
  readonly args: ParsedArgs
  readonly output: Output
  readonly cwd: string
  readonly env: NodeJS.ProcessEnv
  /** The JSONL root of the embedded app (`--dir`, else `$LOGBOOK_DIR`, else `./.logbook`), absolute. */
  readonly storeRoot: string
  /** Aborted on SIGINT. */
  readonly signal: AbortSignal
  /** Standard input, when the command may ask a question. */
  readonly stdin?: TextSource
  /**
   * Start the app the global options select (`--config`, else the embedded app), or the embedded app on `store`;
   * `options` shape the embedded app only.
   */
  openApp(store?: EmbeddedStore, options?: EmbeddedOptions): Promise<App>
  /** Register the app to dispose on SIGINT; returns the unregister function. */
  track(app: App): () => void
}

/** A command: resolves to its exit code. */
export type Command = (context: CommandContext) => Promise<number>

/** Run `body` with the selected app, disposing it afterwards whatever happens. */
export async function withApp<T>(
  context: CommandContext, body: (app: App) => Promise<T>, store?: EmbeddedStore, options?: EmbeddedOptions,
): Promise<T> {
  const app = await context.openApp(store, options)
  const untrack = context.track(app)
  try {
    return await body(app)
  } finally {
    untrack()
    await app.dispose()
  }
}

/**
 * `id` if it is a valid session id.
 * @throws CliError `INVALID_SESSION_ID` (exit 2)
 */
export function sessionIdArg(id: string): string {
  if (!isValidSessionId(id)) throw new CliError('INVALID_SESSION_ID', `invalid session id "${id}"`)
  return id
}

/** JSON text of `value` (one line). */
export function json(value: unknown): string {
  return JSON.stringify(value)
}

/** Resolves when `signal` aborts (SIGINT); a timer keeps the process alive meanwhile (a signal listener does not). */
export function untilAborted(signal: AbortSignal): Promise<void> {
  return new Promise(resolve => {
    if (signal.aborted) return resolve()
    const alive = setInterval(() => {}, 60_000)
    signal.addEventListener('abort', () => {
      clearInterval(alive)
      resolve()
    }, { once: true })
  })
}
