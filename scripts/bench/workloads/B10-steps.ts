/**
 * B10-steps: every step besides the resume, at W and at 10 × W. Each scale runs in its own fresh process
 * (`B10-steps-child.ts`), which builds a live in-memory session of that many W turns and times, once and cold, the
 * append of every event, a surface snapshot, the first derivation of the messages, a rebuild of the built-in
 * projections, a fork at the middle turn's `turn/end`, the compaction span's measurement and selection, and that
 * compaction region (without the summariser's own time). A step's unit is what it walks: events (append,
 * projections), prefix events (fork) or surface nodes (the others).
 *
 * Per step: its time per unit at 10 × W over the same at W. A step that grows linearly stays near 1 (below it when
 * the first, colder run of the code weighs more at W); one that grows as n^k comes to 10^(k−1), so the target's 1.5
 * rules out k ≥ 1.18 and a quadratic step shows as about 10. The figure is the worst step's ratio.
 */

import { report } from '../harness.ts'
// Type-only: importing the child's module for a value would run its measurement here.
import type { StepTime } from './B10-steps-child.ts'
import { runChild } from './persistence-store.ts'

/** How many times W's turns the big session holds (as in B10). */
const SCALE = 10

/** The child's steps at `scale` × W, in the order it ran them. */
function measure(scale: number): Record<string, StepTime> {
  return JSON.parse(runChild('B10-steps-child.ts', [String(scale)], `B10-steps at ${scale} x W`)) as Record<string, StepTime>
}

const w = measure(1)
const big = measure(SCALE)
const perUnit = (t: StepTime): number => (t.ms * 1000) / t.units
const extra: Record<string, number> = {}
let worst = 0
const steps = Object.keys(w)
if (steps.join() !== Object.keys(big).join()) throw new Error(`B10-steps: steps ${steps.join()} at W, ${Object.keys(big).join()} at 10 x W`)
for (const step of steps) {
  if (big[step]!.units < (SCALE - 1) * w[step]!.units) throw new Error(`B10-steps: ${step} covered ${big[step]!.units} units at 10 x W, ${w[step]!.units} at W`)
  const ratio = perUnit(big[step]!) / perUnit(w[step]!)
  extra[`${step}: 10 x W / W per unit`] = ratio
  extra[`${step}: µs per unit at W`] = perUnit(w[step]!)
  extra[`${step}: ms at 10 x W`] = big[step]!.ms
  worst = Math.max(worst, ratio)
}
report({ workload: 'B10-steps', figure: worst, floor: null, ratio: null, extra })
