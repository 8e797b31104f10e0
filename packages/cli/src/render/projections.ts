/**
 * The views of every registered projection (`show --projections`, `/projections` in chat; spec 03 §6.2): one line
 * per viewable unit, in registration order, `<key>: <view as JSON>`, then one line per fault.
 */

import type { ProjectionSnapshot } from '@logbook/session-projection'

/** The lines of `snapshot`. */
export function projectionLines(snapshot: ProjectionSnapshot): string[] {
  const lines = [`projections of ${snapshot.sessionId} as of seq ${snapshot.asOfSeq}:`]
  for (const [key, view] of Object.entries(snapshot.values)) lines.push(`  ${key}: ${JSON.stringify(view)}`)
  for (const [key, fault] of Object.entries(snapshot.faults)) {
    lines.push(`  ${key}: failed at seq ${fault.seq} (${fault.phase}): ${fault.message}`)
  }
  if (lines.length === 1) lines.push('  (no projection is registered)')
  return lines
}
