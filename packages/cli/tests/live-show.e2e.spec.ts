import { describe, expect, it } from 'vitest'
import { lines, logbook, startLogbook } from './helpers/cli.ts'
import { tempDir } from './helpers/store.ts'

async function until(check: () => Promise<boolean> | boolean, what: string): Promise<void> {
  for (let i = 0; i < 1200; i++) {
    if (await check()) return
    await new Promise(resolve => setTimeout(resolve, 25))
  }
  throw new Error(`timed out waiting for ${what}`)
}

describe('reading a session another process is writing', () => {
  it('L-140 show marks a live writer\'s open turn as running (no closers); after SIGKILL it is open until a resume closes it', async () => {
    const cwd = tempDir()
    const chat = startLogbook(['chat', '--dir', 'store'], { cwd, input: 'open' })
    let stderr = ''
    chat.child.stderr!.on('data', (text: Buffer) => (stderr += text.toString()))
    chat.child.stdin!.write('Deploy it to staging.\n')
    await until(() => /logbook chat: (\S+) /.test(stderr), 'the chat banner')
    const id = /logbook chat: (\S+) /.exec(stderr)![1]!
    let shown = ''
    await until(async () => {
      shown = (await logbook(['show', id, '--dir', 'store'], { cwd })).stdout
      return shown.includes('tool> deploy(')
    }, 'the durable tool call')
    expect(lines(shown).at(-1)).toBe('── turn 1 is running ──')
    expect(shown).not.toContain('TOOL_OUTCOME_UNKNOWN')
    const verify = await logbook(['verify', id, '--dir', 'store'], { cwd })
    expect(verify.stdout).toMatch(/turn 1 is open and its writer is live \(other-process\): it may be running/)

    chat.child.kill('SIGKILL')
    await chat.done
    const after = await logbook(['show', id, '--dir', 'store'], { cwd })
    expect(lines(after.stdout).at(-1)).toBe('── turn 1 is open; its writer stopped, and a resume closes it as interrupted ──')
    const resumed = await logbook(['chat', '--dir', 'store', '--resume', id], { cwd, input: '' })
    expect(resumed.code).toBe(0)
    const closed = await logbook(['show', id, '--dir', 'store'], { cwd })
    expect(closed.stdout).toContain('── turn 1 ended: interrupted ──')
    expect(closed.stdout).not.toContain('is open')
  })
})
