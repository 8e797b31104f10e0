import { describe, expect, it } from 'vitest'
import { lines, logbook, startLogbook } from './helpers/cli.ts'
import { tempDir, withStore } from './helpers/store.ts'

describe('logbook demo', () => {
  const cwd = tempDir()
  let first = ''

  it('L-109 demo in an empty directory: crash, resume, compaction and fork, both sessions verify ok', async () => {
    const run = await logbook(['demo'], { cwd })
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    first = run.stdout
    const out = lines(run.stdout)
    for (const heading of ['1. A session with tools: demo-1', '2. Another process resumes it and is killed in the middle of a tool call',
      '3. Resume after the crash', '4. Compaction', '5. Fork', '6. What the projections and verify say']) {
      expect(out).toContain(heading)
    }
    // Turn 1: two parallel read_note calls in one step, todo_write, an answer.
    expect(out.filter(line => line.startsWith('tool> read_note('))).toHaveLength(2)
    expect(out).toContain('── turn 1 ended: completed ──')
    // The killed child's turn, closed by resume with an unknown outcome.
    expect(out).toContain('tool> deploy({"env":"staging"})')
    expect(out.some(line => line.startsWith('result> [TOOL_OUTCOME_UNKNOWN] The tool call was interrupted'))).toBe(true)
    expect(out).toContain('── turn 2 ended: interrupted ──')
    expect(out.some(line => /^ {3}compacted \d+ surface nodes \(~\d+ → ~\d+ tokens\)$/.test(line))).toBe(true)
    expect(out.some(line => line.startsWith('   turn 4\'s request started with the summary: "Earlier conversation was compacted.'))).toBe(true)
    expect(out.some(line => /^ {3}forked demo-1 at seq \d+ \(the end of turn 1\) into demo-1-fork-1$/.test(line))).toBe(true)
    expect(out.some(line => /^ {3}demo-1 still has \d+ events: the fork left it untouched$/.test(line))).toBe(true)
    expect(out).toContain('  title: Plan the release from my notes.')
    expect(out).toContain('    [ ] Code freeze on Thursday')
    expect(out).toContain('verify demo-1: ok')
    expect(out).toContain('verify demo-1-fork-1: ok')
    expect(out.some(line => line.startsWith('Look around: pnpm logbook show demo-1'))).toBe(true)
  })

  it('L-109 both sessions are stored, the parent with the interrupted turn and the fork with its lineage', async () => {
    await withStore(`${cwd}/.logbook`, async (app) => {
      const page = await app.persistence().list()
      expect(page.items.map(item => item.id).sort()).toEqual(['demo-1', 'demo-1-fork-1'])
      const parent = await app.persistence().readFrom('demo-1', 0)
      expect(parent.some(event => event.type === 'turn/end' && event.data.reason.kind === 'interrupted')).toBe(true)
      expect(parent.some(event => event.type === 'tool/result' && event.data.error?.code === 'TOOL_OUTCOME_UNKNOWN')).toBe(true)
      expect(parent.some(event => (event.type as string) === 'compaction/end')).toBe(true)
      const child = page.items.find(item => item.id === 'demo-1-fork-1')!
      expect(child.header.parentSession).toBe('demo-1')
      expect(child.header.isSeeded).toBe(true)
    })
    for (const id of ['demo-1', 'demo-1-fork-1']) {
      const verify = await logbook(['verify', id], { cwd })
      expect(verify.code).toBe(0)
      expect(lines(verify.stdout)[0]).toMatch(new RegExp(`^${id}: ok \\(\\d+ events\\)$`))
    }
  })

  it('L-109 a rerun creates demo-2 with the same transcript apart from that number', async () => {
    const run = await logbook(['demo'], { cwd })
    expect(run.code).toBe(0)
    expect(run.stdout).toContain('1. A session with tools: demo-2')
    expect(run.stdout.replaceAll('demo-2', 'demo-1')).toBe(first)
  })
})

describe('logbook demo interrupted', () => {
  it('SIGINT while the child process runs: exit 130, one line, and no process keeps the session locked', async () => {
    const cwd = tempDir()
    const running = startLogbook(['demo'], { cwd })
    for (let i = 0; i < 600 && !running.stdout().includes('a child process resumes demo-1'); i++) await new Promise(resolve => setTimeout(resolve, 25))
    expect(running.stdout()).toContain('a child process resumes demo-1')
    running.child.kill('SIGINT')
    const run = await running.done
    expect(run.code).toBe(130)
    expect(lines(run.stderr)).toEqual(['logbook: interrupted'])
    // Had the child survived its parent, it would still hold demo-1's write lock: compact would be SESSION_LOCKED.
    const compact = await logbook(['compact', 'demo-1'], { cwd })
    expect(compact.stderr).toBe('')
    expect(compact.code).toBe(0)
  })
})
