/**
 * B9 and B12: list stored sessions (one W turn each; 1,000 for B9, 10,000 for B12) in a fresh process: the first page
 * of 50, and a full walk of every page. Floor: read the header and the last 4 KiB of each stored session, in another
 * fresh process. B12 is this workload with ten times the sessions, so both share this code and the child steps.
 */

import { report } from '../harness.ts'
import { childStep, tempStore, type BackendKind } from './persistence-store.ts'

/** Sessions listed by B9 (and searched by S2). */
export const B9_SESSIONS = 1000
/** Sessions listed and searched by B12. */
export const B12_SESSIONS = 10_000

/** Runs the listing workload `id` over `sessions` stored sessions of `kind` and reports `<id>-<kind>-page` or `-walk`. */
export function runListing(id: 'B9' | 'B12', sessions: number, kind: BackendKind, figure: 'page' | 'walk'): void {
  const fixture = tempStore(`${id.toLowerCase()}-${kind}`)
  try {
    childStep('prep-many', kind, fixture.dir, String(sessions))
    const floor = childStep<{ ms: number; sessions: number }>('list-floor', kind, fixture.dir)
    const run = childStep<{ pageMs: number; walkMs: number; pages: number; items: number }>('list', kind, fixture.dir)
    if (run.items !== sessions || floor.sessions !== sessions) {
      throw new Error(`${id}: listed ${run.items} and read ${floor.sessions} sessions, expected ${sessions}`)
    }
    const ms = figure === 'page' ? run.pageMs : run.walkMs
    report({
      workload: `${id}-${kind}-${figure}`,
      figure: ms,
      floor: floor.ms,
      ratio: ms / floor.ms,
      extra: { 'first page ms': run.pageMs, 'full walk ms': run.walkMs, pages: run.pages },
    })
  } finally {
    fixture.remove()
  }
}

/** Runs B9 for `kind` and reports `B9-<kind>-page` or `B9-<kind>-walk`. */
export function runB9(kind: BackendKind, figure: 'page' | 'walk'): void {
  runListing('B9', B9_SESSIONS, kind, figure)
}
