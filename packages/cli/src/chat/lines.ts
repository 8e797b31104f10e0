/**
 * How `logbook chat` turns typed lines into messages (spec 03 §6.2): a line ending in `\` continues on the next
 * line (the backslash is dropped), and every line of a bracketed paste belongs to the same message, so a pasted
 * block keeps its newlines; the line the user ends with Enter completes the message.
 */

/** Collects lines until a message is complete. */
export class LineAssembler {
  private readonly pending: string[] = []
  private pasting = false

  /** A bracketed paste started (`true`) or ended (`false`). */
  paste(active: boolean): void {
    this.pasting = active
  }

  /** True while a message spans more than the current line. */
  get continuing(): boolean {
    return this.pending.length > 0 || this.pasting
  }

  /** Add one line; returns the complete message, or `undefined` while it continues. */
  push(line: string): string | undefined {
    if (this.pasting) {
      this.pending.push(line)
      return undefined
    }
    if (line.endsWith('\\')) {
      this.pending.push(line.slice(0, -1))
      return undefined
    }
    const message = [...this.pending, line].join('\n')
    this.pending.length = 0
    return message
  }

  /** Drop a half-typed message (Ctrl+C at a continuation prompt). */
  clear(): void {
    this.pending.length = 0
  }

  /** What is collected so far, at end of input: a last line ending in `\` still counts. */
  flush(): string | undefined {
    if (this.pending.length === 0) return undefined
    const message = this.pending.join('\n')
    this.pending.length = 0
    return message
  }
}
