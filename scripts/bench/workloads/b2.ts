/**
 * B2: cold resume of W from disk in a fresh process (open for write, read, repair check, rebuild the `Session`,
 * publish, derive messages). Floor: read the stored log and `JSON.parse` every stored line/row, in another fresh
 * process of the same run. W is stored first by a third process (not timed) in a temp dir, removed afterwards.
 */

import { report } from '../harness.ts'
import { childStep, tempStore, type BackendKind } from './b2-store.ts'

/** Runs B2 for `kind` and reports the row `B2-<kind>`. */
export function runB2(kind: BackendKind): void {
  const fixture = tempStore(`b2-${kind}`)
  try {
    childStep('prep-w', kind, fixture.dir)
    const floor = childStep<{ ms: number; records: number }>('read-floor', kind, fixture.dir)
    const run = childStep<{ ms: number; events: number; messages: number }>('resume', kind, fixture.dir)
    report({
      workload: `B2-${kind}`,
      figure: run.ms,
      floor: floor.ms,
      ratio: run.ms / floor.ms,
      extra: { 'stored records': floor.records, 'events restored': run.events },
    })
  } finally {
    fixture.remove()
  }
}
