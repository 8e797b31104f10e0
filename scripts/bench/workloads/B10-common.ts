/**
 * B10: cold resume of 10 × W (1,110,000 events, the same turns ten times over) in a fresh process, judged per event
 * against B2's resume of W measured in the same run. Beside it: peak RSS above each process's baseline, per event,
 * against the same figure for W (M's). Both sessions are stored first by other processes (not timed) in temp dirs.
 */

import { report } from '../harness.ts'
import { childStep, tempStore, type BackendKind } from './persistence-store.ts'

/** How many times W's turns the big session holds. */
const SCALE = 10

type Resume = { ms: number; events: number; messages: number }
type Rss = { baseline: number; peak: number; events: number }

/** Store a session of `scale` × W, then time its resume and measure its peak RSS, each in its own process. */
function measure(kind: BackendKind, scale: number): { resume: Resume; rss: Rss } {
  const fixture = tempStore(`b10-${kind}-${scale}`)
  try {
    if (scale === 1) childStep('prep-w', kind, fixture.dir)
    else childStep('prep-big', kind, fixture.dir, String(scale))
    const resume = childStep<Resume>('resume', kind, fixture.dir)
    const rss = childStep<Rss>('rss', kind, fixture.dir)
    return { resume, rss }
  } finally {
    fixture.remove()
  }
}

/** Runs B10 for `kind` and reports the row `B10-<kind>` (µs per restored event). */
export function runB10(kind: BackendKind): void {
  const w = measure(kind, 1)
  const big = measure(kind, SCALE)
  if (big.resume.events !== SCALE * (w.resume.events - 1) + 1) {
    throw new Error(`10 x W restored ${big.resume.events} events, W ${w.resume.events}`)
  }
  const perEvent = (r: Resume): number => (r.ms * 1000) / r.events
  const rssPerEvent = (r: Rss): number => (r.peak - r.baseline) / r.events
  report({
    workload: `B10-${kind}`,
    figure: perEvent(big.resume),
    floor: perEvent(w.resume),
    ratio: perEvent(big.resume) / perEvent(w.resume),
    extra: {
      'events restored': big.resume.events,
      '10 x W resume ms': big.resume.ms,
      'W resume ms': w.resume.ms,
      'RSS above baseline per event, 10 x W (bytes)': rssPerEvent(big.rss),
      'RSS above baseline per event, W (bytes)': rssPerEvent(w.rss),
      'RSS per event / W': rssPerEvent(big.rss) / rssPerEvent(w.rss),
    },
  })
}
