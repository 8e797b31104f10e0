/**
 * The summary `logbook import --from <tool>` prints for one source file: what it is, what happened to each session
 * (imported, replaced, already imported — or, with `--dry-run`, what would happen), the records that became no
 * event by type, and the importer's notes.
 */

import type { ImportedSession, ImportResult, StorePlanEntry } from '@logbook/session-interop'

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`

function verb(entry: StorePlanEntry, dryRun: boolean): string {
  switch (entry.action) {
    case 'create': return dryRun ? 'would import' : 'imported'
    case 'replace': return dryRun ? 'would replace' : 'replaced'
    case 'skip': return entry.existingId === entry.session.header.id ? 'already imported' : `already imported as ${entry.existingId}:`
  }
}

function relation(session: ImportedSession): string {
  const parent = session.header.parentSession
  switch (session.role) {
    case 'branch': return `; fork of ${parent} after seq ${session.inheritedEventCount - 1}`
    case 'subagent': return `; subagent of ${parent}`
    case 'main': return ''
  }
}

/** One line per session of `plan`. */
export function sessionLine(entry: StorePlanEntry, dryRun: boolean): string {
  const { session } = entry
  const { events, turns, toolCalls } = session.counts
  return `  ${verb(entry, dryRun)} ${session.header.id} (${session.role}): ${plural(events, 'event')}, ${plural(turns, 'turn')}, `
    + `${plural(toolCalls, 'tool call')}${relation(session)}`
}

/** The lines for one imported file. */
export function importLines(given: string, result: ImportResult, plan: readonly StorePlanEntry[], dryRun: boolean): string[] {
  const { report } = result
  const lines = [`${given}: ${report.tool} session ${report.sourceId ?? '(no id)'}, ${plural(report.records, 'record')}`]
  for (const entry of plan) lines.push(sessionLine(entry, dryRun))
  const skipped = Object.entries(report.skipped)
  if (skipped.length > 0) {
    const unknown = new Set(report.unknownTypes)
    lines.push(`  skipped: ${skipped.map(([label, n]) => `${label} ${n}${unknown.has(label) ? ' (unknown type)' : ''}`).join(', ')}`)
  }
  for (const note of report.notes) lines.push(`  note: ${note}`)
  return lines
}

/** The machine-readable form of one imported file (`--json`). */
export function importJson(given: string, result: ImportResult, plan: readonly StorePlanEntry[], dryRun: boolean): Record<string, unknown> {
  return {
    file: given, dryRun, ...result.report,
    sessions: plan.map(entry => ({
      id: entry.session.header.id, role: entry.session.role, action: entry.action,
      ...(entry.existingId === undefined ? {} : { existingId: entry.existingId }), ...entry.session.counts,
    })),
  }
}
