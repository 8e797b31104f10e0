/**
 * B9: list 1,000 stored sessions (one W turn each) in a fresh process: the first page of 50, and a full walk of
 * every page. Floor: read the header and the last 4 KiB of each stored session, in another fresh process.
 */

import { report } from '../harness.ts'
import { childStep, tempStore, type BackendKind } from './persistence-store.ts'

/** Sessions listed by B9. */
export const B9_SESSIONS = 1000

/** Runs B9 for `kind` and reports `B9-<kind>-page` or `B9-<kind>-walk`. */
export function runB9(kind: BackendKind, figure: 'page' | 'walk'): void {
  const fixture = tempStore(`b9-${kind}`)
  try {
    childStep('prep-many', kind, fixture.dir, String(B9_SESSIONS))
    const floor = childStep<{ ms: number; sessions: number }>('list-floor', kind, fixture.dir)
    const run = childStep<{ pageMs: number; walkMs: number; pages: number; items: number }>('list', kind, fixture.dir)
    if (run.items !== B9_SESSIONS || floor.sessions !== B9_SESSIONS) {
      throw new Error(`B9: listed ${run.items} and read ${floor.sessions} sessions, expected ${B9_SESSIONS}`)
    }
    const ms = figure === 'page' ? run.pageMs : run.walkMs
    report({
      workload: `B9-${kind}-${figure}`,
      figure: ms,
      floor: floor.ms,
      ratio: ms / floor.ms,
      extra: { 'first page ms': run.pageMs, 'full walk ms': run.walkMs, pages: run.pages },
    })
  } finally {
    fixture.remove()
  }
}
