/**
 * Where `logbook chat` reads from (spec 03 §6.2). On a terminal: a readline prompt (`you> `, `...  ` while a message
 * continues) with bracketed paste turned on, so a pasted block arrives as one message, and Ctrl+C reported instead of
 * ending the process. Otherwise: lines until end of input, and SIGINT reported the same way.
 */

import { createInterface, type Interface } from 'node:readline'
import { LineAssembler } from './lines.ts'

const PROMPT = 'you> '
const CONTINUATION = '...  '
/** Terminal modes: bracketed paste on and off (xterm; tmux and most terminals honour them). */
const PASTE_ON = '\u001b[?2004h'
const PASTE_OFF = '\u001b[?2004l'

/** What the input reports. */
export interface ChatInputHandlers {
  /** A complete message (continuations and pastes joined by newlines). */
  message(text: string): void
  /** Ctrl+C. */
  interrupt(): void
  /** End of input (Ctrl+D, a closed pipe). */
  end(): void
}

/** The chat's input. */
export interface ChatInput {
  /** True on a terminal. */
  readonly interactive: boolean
  /** Show the prompt (terminal only). */
  prompt(): void
  /** True when the user has typed something not yet sent. */
  hasText(): boolean
  /** Forget what was typed but not sent, and prompt again. */
  clearLine(): void
  /** Stop reading; restores the terminal. */
  close(): void
}

interface TtyStream extends NodeJS.ReadableStream {
  isTTY?: boolean
}

/** Read from `stdin`, writing prompts to `stdout` when both are terminals. */
export function openChatInput(stdin: TtyStream, stdout: NodeJS.WritableStream & { isTTY?: boolean }, handlers: ChatInputHandlers): ChatInput {
  const assembler = new LineAssembler()
  const interactive = stdin.isTTY === true && stdout.isTTY === true
  const rl: Interface = interactive
    ? createInterface({ input: stdin, output: stdout, terminal: true, prompt: PROMPT, historySize: 200 })
    : createInterface({ input: stdin, terminal: false, crlfDelay: Infinity })
  let closed = false
  let atPrompt = false
  rl.on('line', (line: string) => {
    atPrompt = false
    const message = assembler.push(line)
    if (message === undefined) {
      if (interactive) {
        rl.setPrompt(CONTINUATION)
        atPrompt = true
        rl.prompt()
      }
      return
    }
    rl.setPrompt(PROMPT)
    handlers.message(message)
  })
  rl.on('close', () => {
    if (closed) return
    closed = true
    const rest = assembler.flush()
    if (rest !== undefined) handlers.message(rest)
    handlers.end()
  })
  const onSigint = (): void => handlers.interrupt()
  const onKey = (_char: string | undefined, key: { name?: string } | undefined): void => {
    if (key?.name === 'paste-start') assembler.paste(true)
    if (key?.name === 'paste-end') assembler.paste(false)
  }
  // On a terminal in raw mode Ctrl+C reaches readline as a key, not as a signal; a SIGINT sent to the process
  // (kill -INT, or Ctrl+C with a pipe on stdin) is reported the same way.
  process.on('SIGINT', onSigint)
  if (interactive) {
    rl.on('SIGINT', onSigint)
    stdin.on('keypress', onKey)
    stdout.write(PASTE_ON)
  }
  return {
    interactive,
    prompt: () => {
      if (!interactive || closed) return
      atPrompt = true
      rl.prompt()
    },
    hasText: () => interactive && (rl.line !== '' || assembler.continuing),
    clearLine: () => {
      assembler.clear()
      if (!interactive || closed) return
      // Empty what readline holds (end of line, then delete to its start), show what was dropped followed by ^C,
      // and prompt on a fresh line, as shells do.
      const typed = rl.line
      rl.write(null, { ctrl: true, name: 'e' })
      rl.write(null, { ctrl: true, name: 'u' })
      stdout.write(`${typed}^C\n`)
      rl.setPrompt(PROMPT)
      atPrompt = true
      rl.prompt()
    },
    close: () => {
      process.off('SIGINT', onSigint)
      if (interactive) {
        stdin.off('keypress', onKey)
        // Leaving from the prompt (Ctrl+C, Ctrl+D): what follows starts on a line of its own.
        stdout.write(atPrompt ? `${PASTE_OFF}\n` : PASTE_OFF)
      }
      closed = true
      rl.close()
    },
  }
}
