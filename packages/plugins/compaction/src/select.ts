/**
 * Head-anchored span selection (spec 03 §2.5): everything between the protected head and the retained tail,
 * widened head-ward so that no call/result group is split.
 */

import type { Session } from '@logbook/session'
import { balanceView } from './balance.ts'
import { isCompactionCheckpoint } from './summary-node.ts'
import { logOf } from './log.ts'
import type { Measurement, Span } from './types.ts'

/**
 * The span to compact in `session`, given a `measurement` of its current surface, keeping about `retainTokens`
 * at the tail; `null` when there is nothing worth compacting. A node-0 `system/message` is never inside the span;
 * the newest node is always kept; the span ends on a balanced cut; a lone existing checkpoint is not re-summarised.
 * @throws CompactionError `CORRUPT_SURFACE`.
 */
export function selectSpan(session: Session, measurement: Measurement, retainTokens: number): Span | null {
  const nodes = measurement.nodes
  const count = nodes.length
  if (count === 0) return null
  const events = logOf(session)
  const head = events[nodes[0]!.seq]?.type === 'system/message' ? 1 : 0
  let keep = count - 1
  let kept = nodes[keep]!.tokens
  while (keep > 0 && kept < retainTokens) {
    keep--
    kept += nodes[keep]!.tokens
  }
  const { counters } = balanceView(session)
  while (keep > 0 && counters[keep] !== 0) keep--
  if (keep <= head) return null
  if (keep - 1 === head && isCompactionCheckpoint(events[nodes[head]!.seq])) return null
  return { start: nodes[head]!.seq, end: nodes[keep - 1]!.seq }
}
