/**
 * The demo's crash (spec 03 §6.2 section 2): start the hidden child with the same Node binary and `execArgv`,
 * poll the stored log in read mode until its `deploy` call is durable, then SIGKILL it and wait for its exit.
 */

import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import type { SessionPersistence } from '@logbook/session-persistence'
import { CliError } from '../errors.ts'

/** How long the parent waits for the child's `tool/call` of `deploy` to be durable. */
export const CHILD_DEADLINE_MS = 10_000
const POLL_MS = 40

/** The path of this installation's `bin` module (`bin.ts` from sources, `bin.js` when built). */
export function binPath(): string {
  const here = import.meta.url
  return fileURLToPath(new URL(here.endsWith('.ts') ? '../bin.ts' : '../bin.js', here))
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise(resolve => {
    if (child.exitCode !== null || child.signalCode !== null) resolve()
    else child.once('exit', () => resolve())
  })
}

/**
 * Run `__demo-child <id>` until the stored log of `id` holds a `tool/call` of `deploy` at or after `fromSeq`,
 * then kill it with SIGKILL and wait until it has exited (so its pid is reaped, hence dead for lock takeover).
 * An aborted `signal` (SIGINT) kills the child the same way, so an interrupted demo leaves no process behind.
 * @throws CliError `DEMO_FAILED` when the child exits early or the call is not durable within 10 s; `signal.reason`.
 */
export async function crashChildDuringDeploy(persistence: SessionPersistence, id: string, fromSeq: number, root: string, debug: boolean, signal: AbortSignal): Promise<void> {
  const child = spawn(process.execPath, [...process.execArgv, binPath(), '__demo-child', id, '--dir', root], {
    stdio: ['ignore', 'ignore', debug ? 'inherit' : 'ignore'],
  })
  const gone = exited(child)
  let early = false
  void gone.then(() => {
    early = true
  })
  const deadline = Date.now() + CHILD_DEADLINE_MS
  try {
    for (;;) {
      signal.throwIfAborted()
      const events = await persistence.readFrom(id, fromSeq)
      if (events.some(event => event.type === 'tool/call' && event.data.name === 'deploy')) break
      if (early) throw new CliError('DEMO_FAILED', `the demo child exited (code ${String(child.exitCode ?? child.signalCode)}) before its deploy call was durable`)
      if (Date.now() > deadline) throw new CliError('DEMO_FAILED', `the demo child's deploy call was not durable within ${CHILD_DEADLINE_MS / 1000} s`)
      await new Promise(resolve => setTimeout(resolve, POLL_MS))
    }
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    await gone
  }
}
