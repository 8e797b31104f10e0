import { describe, expect, it } from 'vitest'
import { Output, type TextSink } from '../src/io.ts'

function sinks(tty: boolean): { stdout: TextSink & { text: string }; stderr: TextSink & { text: string } } {
  const make = () => {
    const sink = { text: '', isTTY: tty, write: (chunk: string) => (sink.text += chunk) }
    return sink
  }
  return { stdout: make(), stderr: make() }
}

describe('progress lines', () => {
  it('print at the start, at most every 250 ms, and at the end, on stderr only', () => {
    const { stdout, stderr } = sinks(false)
    const output = new Output({ stdout, stderr, env: {} }, { quiet: false, progress: true, noColor: true })
    let now = 0
    const progress = output.progress('verify', 's', 50_000, 10_000, () => now)
    for (let done = 1000; done < 50_000; done += 1000) {
      now += 100
      progress.tick(done)
    }
    progress.end()
    progress.end()
    expect(stdout.text).toBe('')
    const rows = stderr.text.trim().split('\n')
    expect(rows[0]).toBe('logbook: verify s: 0/50000')
    expect(rows.at(-1)).toBe('logbook: verify s: 50000/50000')
    // 49 ticks 100 ms apart: a line at 300, 600, … (every third tick), plus the first and the last.
    expect(rows).toHaveLength(2 + 16)
    expect(rows[1]).toBe('logbook: verify s: 3000/50000')
  })

  it('stays silent below the threshold, without a TTY or --progress, and under --quiet', () => {
    for (const [tty, flags, total] of [
      [true, { quiet: false, progress: false }, 10_000],
      [false, { quiet: false, progress: false }, 20_000],
      [true, { quiet: true, progress: true }, 20_000],
    ] as const) {
      const { stdout, stderr } = sinks(tty)
      const output = new Output({ stdout, stderr, env: {} }, { ...flags, noColor: true })
      const progress = output.progress('export', 's', total, 10_000, () => 0)
      progress.tick(5)
      progress.end()
      expect(stderr.text).toBe('')
    }
  })

  it('rewrites one line in place on a TTY', () => {
    const { stdout, stderr } = sinks(true)
    const output = new Output({ stdout, stderr, env: {} }, { quiet: false, progress: false, noColor: true })
    let now = 0
    const progress = output.progress('import', 's', 20_000, 10_000, () => now)
    now = 300
    progress.tick(10_000)
    progress.end()
    expect(stderr.text).toBe('\rlogbook: import s: 0/20000\rlogbook: import s: 10000/20000\rlogbook: import s: 20000/20000\n')
  })

  it('colours only a TTY, never with NO_COLOR or --no-color', () => {
    const tty = sinks(true)
    expect(new Output({ ...tty, env: {} }, { quiet: false, progress: false, noColor: false }).bold('x')).toBe('\u001b[1mx\u001b[0m')
    expect(new Output({ ...tty, env: { NO_COLOR: '1' } }, { quiet: false, progress: false, noColor: false }).bold('x')).toBe('x')
    expect(new Output({ ...tty, env: {} }, { quiet: false, progress: false, noColor: true }).bold('x')).toBe('x')
    expect(new Output({ ...sinks(false), env: {} }, { quiet: false, progress: false, noColor: false }).bold('x')).toBe('x')
  })
})
