/**
 * The `logbook` command line (spec 03 §6): parse, dispatch, report. Every failure is one stderr line
 * `logbook: <message> [<CODE>]` (the stack only with `LOGBOOK_DEBUG=1`) and a documented exit code; SIGINT
 * cancels running turns, disposes the app and exits 130 (a second SIGINT exits 130 at once).
 */

import { createRequire } from 'node:module'
import { resolve } from 'node:path'
import { codeOf } from '@logbook/session'
import type { App } from './app/app.ts'
import type { EmbeddedOptions, EmbeddedStore } from './app/embedded.ts'
import { parseCommandLine, type CommandName, type ParsedArgs } from './args.ts'
import type { Command, CommandContext } from './command.ts'
import { CliError, EXIT, exitCodeOf, oneLine } from './errors.ts'
import { Output, type CliStreams } from './io.ts'
import { commandHelp, OVERVIEW } from './usage.ts'

/** Each command's module, imported on first use so that usage errors and `--help` stay fast. */
const COMMAND_TABLE: Readonly<Record<CommandName, () => Promise<Command>>> = {
  'demo': async () => (await import('./demo/demo.ts')).demo,
  'run': async () => (await import('./commands/run.ts')).run,
  'chat': async () => (await import('./commands/chat.ts')).chat,
  'list': async () => (await import('./commands/list.ts')).list,
  'show': async () => (await import('./commands/show.ts')).show,
  'fork': async () => (await import('./commands/fork.ts')).fork,
  'compact': async () => (await import('./commands/compact.ts')).compact,
  'verify': async () => (await import('./commands/verify.ts')).verify,
  'repair': async () => (await import('./commands/repair.ts')).repair,
  'migrate': async () => (await import('./commands/migrate.ts')).migrate,
  'export': async () => (await import('./commands/export.ts')).exportSession,
  'import': async () => (await import('./commands/import-from.ts')).importFrom,
  'transfer': async () => (await import('./commands/transfer.ts')).transfer,
  'view': async () => (await import('./commands/view.ts')).view,
  '__demo-child': async () => (await import('./demo/child.ts')).demoChild,
  'search': async () => (await import('./commands/search.ts')).search,
  'delete': async () => (await import('./commands/delete.ts')).deleteSession,
}

/** Commands that handle Ctrl-C themselves (chat: it cancels the running turn instead of ending the process). */
const OWN_SIGINT: ReadonlySet<CommandName> = new Set(['chat'])

/** The package version (`logbook --version`). */
export function version(): string {
  return (createRequire(import.meta.url)('../package.json') as { version: string }).version
}

/** Where `main` runs: streams, working directory, and whether it owns the process's SIGINT. */
export interface MainOptions {
  readonly streams?: CliStreams
  readonly cwd?: string
  /** Install a SIGINT handler for the duration of the command (default true). */
  readonly handleSigint?: boolean
}

function report(streams: CliStreams, error: unknown): void {
  if (error instanceof CliError && error.alreadyReported) return
  const code = codeOf(error) ?? 'UNEXPECTED'
  streams.stderr.write(`logbook: ${oneLine(error)} [${code}]\n`)
  if (streams.env.LOGBOOK_DEBUG === '1' && error instanceof Error && error.stack !== undefined) streams.stderr.write(`${error.stack}\n`)
}

async function dispatch(args: ParsedArgs, output: Output, streams: CliStreams, cwd: string, handleSigint: boolean): Promise<number> {
  const command = args.command!
  const controller = new AbortController()
  const apps = new Set<App>()
  const storeRoot = resolve(cwd, args.global.dir ?? (streams.env.LOGBOOK_DIR || '.logbook'))
  const context: CommandContext = {
    args, output, cwd, env: streams.env, storeRoot, signal: controller.signal,
    ...(streams.stdin === undefined ? {} : { stdin: streams.stdin }),
    openApp: async (store?: EmbeddedStore, options?: EmbeddedOptions) => {
      if (store === undefined && args.global.config !== undefined) {
        const { bootConfigApp } = await import('./app/boot.ts')
        return bootConfigApp(resolve(cwd, args.global.config), output)
      }
      const { openEmbeddedApp } = await import('./app/embedded.ts')
      return openEmbeddedApp(store ?? { kind: 'jsonl', root: storeRoot }, output, options)
    },
    track: (app) => {
      apps.add(app)
      return () => apps.delete(app)
    },
  }
  const onSigint = (): void => {
    // A second Ctrl-C does not wait for a teardown that seems stuck.
    if (controller.signal.aborted) process.exit(EXIT.INTERRUPTED)
    controller.abort(new DOMException('interrupted by SIGINT', 'AbortError'))
  }
  const sigint = handleSigint && !OWN_SIGINT.has(command)
  if (sigint) process.on('SIGINT', onSigint)
  try {
    const interrupted = new Promise<'interrupted'>(settle => controller.signal.addEventListener('abort', () => settle('interrupted'), { once: true }))
    const body = await COMMAND_TABLE[command]()
    const work = body(context)
    const outcome = await Promise.race([work, interrupted])
    if (outcome !== 'interrupted') return outcome
    // The command may still reject while it unwinds; its failure is superseded by the interruption.
    work.catch(() => {})
    for (const app of apps) {
      for (const agent of app.ctx.get('agents')?.list() ?? []) agent.cancel('user')
    }
    await Promise.allSettled([...apps].map(app => app.dispose()))
    output.error('interrupted')
    return EXIT.INTERRUPTED
  } finally {
    if (sigint) process.off('SIGINT', onSigint)
  }
}

/**
 * Run the command line `argv` (without `node` and the script) and resolve to the exit code; never throws.
 */
export async function main(argv: readonly string[], options: MainOptions = {}): Promise<number> {
  const streams = options.streams ?? { stdout: process.stdout, stderr: process.stderr, env: process.env, stdin: process.stdin }
  const cwd = options.cwd ?? process.cwd()
  let args: ParsedArgs
  try {
    args = parseCommandLine(argv)
  } catch (error) {
    report(streams, error)
    return exitCodeOf(error)
  }
  const output = new Output(streams, { quiet: args.global.quiet, progress: args.global.progress, noColor: args.global.noColor })
  if (args.global.version) {
    output.line(version())
    return EXIT.OK
  }
  if (args.global.help) {
    output.line(args.command === undefined ? OVERVIEW : commandHelp(args.command))
    return EXIT.OK
  }
  if (args.command === undefined) {
    streams.stderr.write(`${OVERVIEW}\n`)
    return EXIT.USAGE
  }
  try {
    return await dispatch(args, output, streams, cwd, options.handleSigint ?? true)
  } catch (error) {
    report(streams, error)
    return exitCodeOf(error)
  }
}
