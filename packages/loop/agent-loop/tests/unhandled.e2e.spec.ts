import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'

const here = dirname(fileURLToPath(import.meta.url))
const dirs: string[] = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

/** Run the child fixture in `mode` on a fresh JSONL root; its exit status, stdout and stderr. */
function runChild(mode: 'dup' | 'dir'): { status: number | null; stdout: string; stderr: string } {
  const root = mkdtempSync(join(tmpdir(), 'logbook-unhandled-'))
  dirs.push(root)
  const child = spawnSync(process.execPath, ['--conditions=source', '--import', 'tsx', join(here, 'fixtures', 'dispose-failure.ts'), root, mode], {
    cwd: join(here, '..'), encoding: 'utf8', timeout: 120_000,
  })
  return { status: child.status, stdout: child.stdout, stderr: child.stderr }
}

describe('a failed dispose leaves no unhandled rejection', () => {
  it('L-193 two apps on one JSONL root create agents on one id: the second dispose rejects SESSION_LOCKED to its caller only; the process exits 0', () => {
    const { status, stdout, stderr } = runChild('dup')
    expect(stderr).not.toMatch(/unhandled|Unhandled/)
    expect(stdout.split('\n').filter(Boolean)).toEqual(['turn: completed', 'dispose: rejected SESSION_LOCKED', 'end'])
    expect(status).toBe(0)
  })

  it('L-193 session.jsonl is a directory: the dispose rejects to its caller only; the process exits 0', () => {
    const { status, stdout, stderr } = runChild('dir')
    expect(stderr).not.toMatch(/unhandled|Unhandled/)
    const lines = stdout.split('\n').filter(Boolean)
    expect(lines[0]).toBe('turn: completed')
    expect(lines[1]).toMatch(/^dispose: rejected [A-Z_]+$/)
    expect(lines[2]).toBe('end')
    expect(status).toBe(0)
  })
})
