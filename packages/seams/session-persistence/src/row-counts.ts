/**
 * The row count of each session at the last revision a row store saw (02 §1.4 `physicalLength`): a commit adds its
 * rows to the count of the revision it expected, and a seek reports the count without counting the whole log, both
 * only when the remembered revision is exactly the current one.
 */
export class RevisionRowCounts {
  private readonly counts = new Map<string, { readonly revision: string; readonly rows: number }>()

  /** The rows of `id` at `revision`, when remembered for that very revision. */
  at(id: string, revision: string): number | undefined {
    const known = this.counts.get(id)
    return known !== undefined && known.revision === revision ? known.rows : undefined
  }

  /** Remember that `id` holds `rows` rows at `revision`. */
  set(id: string, revision: string, rows: number): void {
    this.counts.set(id, { revision, rows })
  }

  /**
   * A scan's `physicalLength`: a full scan's `rows`, remembered for `revision`; a seek's remembered count of this very
   * revision, else −1 (a seek reads only its window, so its own row count is not the log's).
   */
  scanned(id: string, revision: string, rows: number, seek: boolean): number {
    if (seek) return this.at(id, revision) ?? -1
    this.set(id, revision, rows)
    return rows
  }

  /** Forget `id` (deleted). */
  delete(id: string): void {
    this.counts.delete(id)
  }

  /** Forget every session (the store was rewritten). */
  clear(): void {
    this.counts.clear()
  }
}
