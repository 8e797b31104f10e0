/**
 * B6: a full scripted agent loop producing W's 1,000 turns (111 events each) with persistence and the checkpoint
 * policy (`B6-child.ts` describes the app and the script). Figure: events/s of the persisted loop, from the first
 * `send` until `dispose()` resolved (its final flush included). Floor: the B1 figure of the same run (`B1.ts` run in
 * its own process). Extras: the share of the time spent in persistence, measured two ways — against the same loop
 * without persistence nor checkpoint policy (`memory`, in its own process) and as the time the loop spent awaiting
 * `ctx.sessions.flush`. Each step runs in a fresh process, so each is billed its own first-run costs.
 */

import { report, RESULT_MARKER, type RunResult } from '../harness.ts'
import { runChild, tempStore, type BackendKind } from './persistence-store.ts'

interface LoopRun { ms: number; events: number; turns: number; flushMs: number; flushes: number }

/** Runs `file args…` in a fresh workload-like process and returns its stdout's last line. */
function run(file: string, ...args: string[]): string {
  return runChild(file, args, `B6: ${file} ${args.join(' ')}`)
}

/** Runs B6 for `kind` and reports the row `B6-<kind>`. */
export function runB6(kind: BackendKind): void {
  const b1Line = run('B1.ts')
  if (!b1Line.startsWith(RESULT_MARKER)) throw new Error(`B6: B1 printed no result: ${b1Line}`)
  const b1 = JSON.parse(b1Line.slice(RESULT_MARKER.length)) as RunResult
  const memory = JSON.parse(run('B6-child.ts', 'memory')) as LoopRun
  const fixture = tempStore(`b6-${kind}`)
  let persisted: LoopRun
  try {
    persisted = JSON.parse(run('B6-child.ts', kind, fixture.dir)) as LoopRun
  } finally {
    fixture.remove()
  }
  const rate = persisted.events / (persisted.ms / 1000)
  report({
    workload: `B6-${kind}`,
    figure: rate,
    floor: b1.figure,
    ratio: b1.figure / rate,
    extra: {
      'loop ms': persisted.ms,
      'persistence share %': (100 * Math.max(0, persisted.ms - memory.ms)) / persisted.ms,
      'flush wait share %': (100 * persisted.flushMs) / persisted.ms,
      'ms per flush': persisted.flushMs / persisted.flushes,
      'in-memory loop events/s': memory.events / (memory.ms / 1000),
      events: persisted.events,
    },
  })
}
