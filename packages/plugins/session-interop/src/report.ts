/**
 * The import report as it accumulates: what became no event, by label (each source record counted once, even when
 * several sessions share it), which labels are record types the importer does not know, and notes.
 */

import type { BuilderSource } from './builder.ts'
import type { ImportReport, ImportTool } from './types.ts'

/** Collects the report of one import. */
export class ReportBuilder {
  private readonly skipped = new Map<string, number>()
  private readonly unknown = new Set<string>()
  private readonly notes = new Set<string>()
  private readonly counted = new Set<string>()

  /** Count `label` once per `key` (every call when no key is given). */
  skip(label: string, key?: string): void {
    if (key !== undefined) {
      const id = `${label}\u0000${key}`
      if (this.counted.has(id)) return
      this.counted.add(id)
    }
    this.skipped.set(label, (this.skipped.get(label) ?? 0) + 1)
  }

  /** Count a record of a type the importer does not know. */
  unknownType(type: string, key?: string): void {
    this.unknown.add(type)
    this.skip(type, key)
  }

  /** Record one note (repeats collapse). */
  note(text: string): void {
    this.notes.add(text)
  }

  /** The builder's view of this report. */
  source(toolName: string, idSeed: string, startTime: number): BuilderSource {
    return { toolName, idSeed, startTime, note: text => this.note(text), skip: (label, key) => this.skip(label, key) }
  }

  /** The finished report. */
  report(tool: ImportTool, records: number, file?: string, sourceId?: string): ImportReport {
    const skipped: Record<string, number> = {}
    for (const [label, count] of [...this.skipped].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) skipped[label] = count
    return {
      tool, ...(file === undefined ? {} : { file }), ...(sourceId === undefined ? {} : { sourceId }), records,
      skipped, unknownTypes: [...this.unknown].sort(), notes: [...this.notes],
    }
  }
}
