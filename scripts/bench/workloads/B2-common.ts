/**
 * B2: cold resume of W from disk in a fresh process (open for write, read, repair check, rebuild the `Session`,
 * publish, derive messages). Floor: read the stored log and `JSON.parse` every stored line/row, in another fresh
 * process of the same run. W is stored first by a third process (not timed) in a temp dir, removed afterwards.
 * A third fresh process measures a reference that is not a target: the floor plus building every event frozen the
 * plain way (each chunk member its own three objects), with no check and no session, reported beside the ratio; a
 * fourth parses W stored one event per line (the floor the backends would have without packed chunk rows); a fifth
 * (file backends) measures the checked-hold reference: the floor plus each record's checksum checked, every event
 * that is not a packed row deep-frozen and every row held packed — the least a resume with these integrity checks
 * does, with no session, no event checks and no surface. A sixth runs the same resume three times, each on a new
 * mount, and times the third: the **warm reference**, what B2 costs once V8 has compiled the restore code, so that the
 * figure's excess over it is the fresh process's warm-up.
 */

import { report, type cpuSpentSince } from '../harness.ts'
import { childStep, tempStore, type BackendKind } from './persistence-store.ts'

type CpuSpent = Partial<ReturnType<typeof cpuSpentSince>>

/**
 * The CPU beside the wall time: the main thread's of the resume over the floor's (steadier than wall time on a busy
 * machine), every thread's of the resume (GC helpers and background compilers run beside the main thread) and
 * how long the main thread waited for a core while they ran.
 * None for PostgreSQL, whose server's CPU is another process's.
 */
function cpuFigures(run: CpuSpent, floor: CpuSpent): Record<string, number> {
  if (run.processCpuMs === undefined || floor.processCpuMs === undefined) return {}
  const figures: Record<string, number> = { 'figure process CPU ms (every thread)': run.processCpuMs, 'floor process CPU ms': floor.processCpuMs }
  if (run.mainCpuMs !== undefined && floor.mainCpuMs !== undefined) {
    figures['figure main-thread CPU ms'] = run.mainCpuMs
    figures['floor main-thread CPU ms'] = floor.mainCpuMs
    figures['main-thread CPU / floor main-thread CPU'] = run.mainCpuMs / floor.mainCpuMs
  }
  if (run.mainWaitMs !== undefined) figures['figure main-thread run-queue wait ms'] = run.mainWaitMs
  return figures
}

/** Runs B2 for `kind` and reports the row `B2-<kind>`. */
export function runB2(kind: BackendKind): void {
  const fixture = tempStore(`b2-${kind}`)
  try {
    childStep('prep-w', kind, fixture.dir)
    const floor = childStep<{ ms: number; records: number } & CpuSpent>('read-floor', kind, fixture.dir)
    const eager = childStep<{ ms: number; events: number }>('eager-build', kind, fixture.dir)
    const unpacked = childStep<{ ms: number; records: number }>('unpacked-floor', kind, fixture.dir)
    const held = kind === 'postgres' ? undefined : childStep<{ ms: number; events: number }>('checked-hold', kind, fixture.dir)
    const run = childStep<{ ms: number; events: number; messages: number } & CpuSpent>('resume', kind, fixture.dir)
    const warm = childStep<{ ms: number; events: number }>('resume-warm', kind, fixture.dir)
    if (warm.events !== run.events) throw new Error(`warm resume restored ${warm.events} events, cold resume ${run.events}`)
    if (held !== undefined && held.events !== eager.events) throw new Error(`checked hold kept ${held.events} events, eager build ${eager.events}`)
    if (eager.events !== run.events - 1) throw new Error(`eager build made ${eager.events} events, resume ${run.events}`)
    report({
      workload: `B2-${kind}`,
      figure: run.ms,
      floor: floor.ms,
      ratio: run.ms / floor.ms,
      extra: {
        'stored records': floor.records,
        'events restored': run.events,
        'eager-build reference ms': eager.ms,
        'eager-build reference / floor': eager.ms / floor.ms,
        ...(held === undefined ? {} : {
          'checked-hold reference ms': held.ms,
          'checked-hold reference / floor': held.ms / floor.ms,
          'figure / checked-hold reference': run.ms / held.ms,
        }),
        'warm reference ms (third resume in one process)': warm.ms,
        'warm reference / floor': warm.ms / floor.ms,
        'figure / warm reference': run.ms / warm.ms,
        'unpacked floor ms (one event per line)': unpacked.ms,
        'figure / unpacked floor': run.ms / unpacked.ms,
        ...cpuFigures(run, floor),
      },
    })
  } finally {
    fixture.remove()
  }
}
