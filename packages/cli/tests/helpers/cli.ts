/**
 * Spawning `logbook` as a person runs it: a real process, its stdout, stderr and exit code.
 */

import { spawn, type ChildProcess } from 'node:child_process'
import { inject } from 'vitest'

/** What one run printed and returned. */
export interface CliRun {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
}

/** Options of one run. */
export interface CliRunOptions {
  readonly cwd: string
  readonly env?: Readonly<Record<string, string | undefined>>
  /** Text written to the process's stdin, which is then closed; `'open'` leaves a pipe open for the test to write. */
  readonly input?: string | 'open'
}

/** How the global setup decided to run the CLI (`built` or `source`). */
export function cliMode(): 'built' | 'source' {
  return inject('logbookCommand').mode
}

/** A running `logbook` process. */
export interface CliProcess {
  readonly child: ChildProcess
  /** Everything printed on stdout so far. */
  stdout(): string
  /** Resolves when the process has exited. */
  readonly done: Promise<CliRun>
}

/** Start `logbook <args>` in `cwd`. */
export function startLogbook(args: readonly string[], options: CliRunOptions): CliProcess {
  const { argv } = inject('logbookCommand')
  // Hermetic: no colour, no inherited store, debug output or Node options (`--inspect` would print to stderr).
  const env: Record<string, string | undefined> = {
    ...process.env, NO_COLOR: '1', LOGBOOK_DIR: undefined, LOGBOOK_DEBUG: undefined, NODE_OPTIONS: undefined, ...options.env,
  }
  for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key]
  const stdin = options.input === undefined ? 'ignore' : 'pipe'
  const child = spawn(process.execPath, [...argv, ...args], { cwd: options.cwd, env: env as NodeJS.ProcessEnv, stdio: [stdin, 'pipe', 'pipe'] })
  if (typeof options.input === 'string' && options.input !== 'open') child.stdin!.end(options.input)
  let stdout = ''
  let stderr = ''
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  const done = new Promise<CliRun>((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }))
  })
  return { child, stdout: () => stdout, done }
}

/** The command line that starts `logbook` (node and its arguments), for a shell such as a tmux pane. */
export function logbookArgv(): readonly string[] {
  return [process.execPath, ...inject('logbookCommand').argv]
}

/** Run `logbook <args>` in `cwd` and wait for it to exit. */
export function logbook(args: readonly string[], options: CliRunOptions): Promise<CliRun> {
  return startLogbook(args, options).done
}

/** The non-empty lines of `text`. */
export function lines(text: string): string[] {
  return text.split('\n').filter(line => line !== '')
}

/** A running `logbook view` and the address it printed. */
export interface ViewerProcess {
  readonly process: CliProcess
  readonly url: string
  /** `http://127.0.0.1:<port>`. */
  readonly base: string
  /** SIGINT, then wait for the exit. */
  stop(): Promise<CliRun>
}

/** Start `logbook view <args>` in `cwd` and wait until it prints its address. */
export async function startViewer(args: readonly string[], options: CliRunOptions): Promise<ViewerProcess> {
  const process = startLogbook(['view', ...args], options)
  const url = await new Promise<string>((resolve, reject) => {
    const check = (): void => {
      const line = /^(http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)$/m.exec(process.stdout())?.[1]
      if (line !== undefined) resolve(line)
    }
    process.child.stdout!.on('data', check)
    void process.done.then(run => reject(new Error(`logbook view exited (${run.code}) before printing its address: ${run.stderr}`)))
  })
  return {
    process, url, base: new URL(url).origin,
    stop: () => {
      process.child.kill('SIGINT')
      return process.done
    },
  }
}
