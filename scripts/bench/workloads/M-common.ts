/**
 * M: peak RSS of a restore-only process doing B2 (a fresh process: imports, mount, cold resume of W), against the
 * RSS of that process after all imports and the mount. W is stored first by another process in a temp dir.
 */

import { report } from '../harness.ts'
import { childStep, tempStore, type BackendKind } from './persistence-store.ts'

const MB = 1024 * 1024

/** Runs M for `kind` and reports the row `M-<kind>` in MB. */
export function runM(kind: BackendKind): void {
  const fixture = tempStore(`m-${kind}`)
  try {
    childStep('prep-w', kind, fixture.dir)
    const run = childStep<{ baseline: number; peak: number; events: number }>('rss', kind, fixture.dir)
    report({ workload: `M-${kind}`, figure: run.peak / MB, floor: run.baseline / MB, ratio: run.peak / run.baseline, extra: { events: run.events } })
  } finally {
    fixture.remove()
  }
}
