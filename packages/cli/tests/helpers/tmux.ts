/**
 * A real pseudo-terminal for tests: a detached tmux session on a private server socket, driven with `send-keys`
 * and `paste-buffer`, read with `capture-pane`. The command runs under `sh`, which prints `[exit <code>]` when it
 * ends and keeps the pane open, so the final screen can still be read.
 */

import { execFileSync } from 'node:child_process'

const SOCKET = `logbook-test-${process.pid}`

function tmux(...args: string[]): string {
  return execFileSync('tmux', ['-L', SOCKET, ...args], { encoding: 'utf8' })
}

/** Quote `word` for `sh`. */
function quote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`
}

let count = 0

/** One tmux session running one command. */
export class Terminal {
  private constructor(readonly name: string) {}

  /** Start `argv` in `cwd` with `env` set, on a terminal of `columns` × `rows`. */
  static start(argv: readonly string[], cwd: string, env: Readonly<Record<string, string>> = {}, columns = 160, rows = 60): Terminal {
    const name = `t${++count}`
    const assignments = Object.entries(env).map(([key, value]) => `${key}=${quote(value)}`).join(' ')
    const command = `unset LOGBOOK_DIR LOGBOOK_DEBUG NODE_OPTIONS; ${assignments} ${argv.map(quote).join(' ')}; echo "[exit $?]"; sleep 600`
    tmux('new-session', '-d', '-s', name, '-x', String(columns), '-y', String(rows), '-c', cwd, command)
    return new Terminal(name)
  }

  /** Type keys (tmux key names such as `Enter`, `C-c`; other words are typed literally). */
  keys(...keys: string[]): void {
    tmux('send-keys', '-t', this.name, ...keys)
  }

  /** Type `text` literally (no key names). */
  type(text: string): void {
    tmux('send-keys', '-t', this.name, '-l', text)
  }

  /** Paste `text` as a terminal does: inside bracketed-paste markers when the program asked for them. */
  paste(text: string): void {
    tmux('set-buffer', '-b', this.name, text)
    tmux('paste-buffer', '-p', '-d', '-b', this.name, '-t', this.name)
  }

  /** Every line the pane shows or scrolled past, wrapped lines joined, trailing blanks removed. */
  screen(): string {
    return tmux('capture-pane', '-p', '-J', '-S', '-', '-t', this.name).split('\n').map(line => line.trimEnd()).join('\n').trimEnd()
  }

  /** Resolves with the screen once `expected` appears on it (checked every 50 ms), or fails after `ms`. */
  async waitFor(expected: string | RegExp, ms = 60_000): Promise<string> {
    const deadline = Date.now() + ms
    for (;;) {
      const screen = this.screen()
      if (typeof expected === 'string' ? screen.includes(expected) : expected.test(screen)) return screen
      if (Date.now() > deadline) throw new Error(`the terminal never showed ${String(expected)}; it shows:\n${screen}`)
      await new Promise(resolve => setTimeout(resolve, 50))
    }
  }

  /** End the session. */
  kill(): void {
    try {
      tmux('kill-session', '-t', this.name)
    } catch {
      // Already gone: nothing to clean up.
    }
  }
}
