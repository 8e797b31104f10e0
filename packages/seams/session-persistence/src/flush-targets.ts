/**
 * The pending flush barriers of one live writer (spec 02 §2.3): each flush waits for the durable cursor to reach its
 * own target; a failed write rejects every unmet one with that error.
 */

interface Target {
  readonly target: number
  readonly resolve: () => void
  readonly reject: (error: unknown) => void
}

/** The unmet flush targets of one writer, in arrival order. */
export class FlushTargets {
  private targets: Target[] = []

  /** True while some flush waits. */
  get unmet(): boolean {
    return this.targets.length > 0
  }

  /** A promise that resolves once `settle` sees a cursor at or beyond `target`, or rejects through `rejectAll`. */
  wait(target: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.targets.push({ target, resolve, reject })
    })
  }

  /** Resolve every flush whose target `cursor` reached. */
  settle(cursor: number): void {
    const targets = this.targets
    if (targets.length === 0) return
    // The common case, one flush waiting: no arrays are built.
    if (targets.length === 1) {
      const only = targets[0] as Target
      if (only.target > cursor) return
      this.targets = []
      only.resolve()
      return
    }
    const met = targets.filter(t => t.target <= cursor)
    if (met.length === 0) return
    this.targets = targets.filter(t => t.target > cursor)
    for (const t of met) t.resolve()
  }

  /** Reject every waiting flush with `error` (the same object for all). */
  rejectAll(error: unknown): void {
    const unmet = this.targets
    this.targets = []
    for (const t of unmet) t.reject(error)
  }
}
