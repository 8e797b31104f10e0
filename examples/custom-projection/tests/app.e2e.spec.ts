import { spawn } from 'node:child_process'
import { cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'

const example = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const require = createRequire(join(example, 'package.json'))
const cliBin = join(dirname(require.resolve('@logbook/cli/package.json')), 'src', 'bin.ts')
const tsx = pathToFileURL(require.resolve('tsx')).href

const dirs: string[] = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

/** The example as a user's project elsewhere: its files, and its installed dependencies. */
function project(): string {
  const dir = mkdtempSync(join(tmpdir(), 'logbook-histogram-'))
  dirs.push(dir)
  for (const file of ['cordis.yml', 'script.json', 'notes-tool.mjs', 'package.json', 'src']) cpSync(join(example, file), join(dir, file), { recursive: true })
  symlinkSync(join(example, 'node_modules'), join(dir, 'node_modules'), 'dir')
  return dir
}

/** `pnpm logbook <args>` as the README runs it: the CLI from sources through tsx. */
function logbook(args: readonly string[], cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' }
  for (const key of ['LOGBOOK_DIR', 'LOGBOOK_DEBUG', 'NODE_OPTIONS']) delete env[key]
  const child = spawn(process.execPath, ['--conditions=source', '--import', tsx, cliBin, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text))
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text))
  return new Promise((done, fail) => {
    child.on('error', fail)
    child.on('close', code => done({ code, stdout, stderr }))
  })
}

describe('the example deployed with one cordis.yml entry', () => {
  it('L-138 logbook run --config boots the app naming @logbook-examples/custom-projection; show --projections prints its view beside the built-ins', async () => {
    const dir = project()
    const file = join(dir, 'cordis.yml')
    const run = await logbook(['run', '--config', file], dir)
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    expect(run.stdout.trimEnd().split('\n')).toEqual([
      'you> Read my release notes.',
      'model> Reading both notes.',
      'tool> read_note({"name":"release.md"})',
      'tool> read_note({"name":"deploy.md"})',
      'result> Release 1.4 ships on Thursday.',
      'result> Deploy to staging first, then production.',
      'model> Release on Thursday; deploy to staging first.',
      '── turn 1 ended: completed ──',
    ])
    const listed = JSON.parse((await logbook(['list', '--config', file, '--json'], dir)).stdout) as { items: { id: string }[] }
    const id = listed.items[0]!.id
    const shown = await logbook(['show', id, '--projections', '--config', file], dir)
    expect(shown.stderr).toBe('')
    const lines = shown.stdout.trimEnd().split('\n')
    expect(lines[0]).toMatch(new RegExp(`^projections of ${id} as of seq \\d+:$`))
    expect(lines.slice(1).map(line => line.split(':')[0]!.trim())).toEqual(['stats', 'todos', 'title', 'acme/tool-histogram'])
    expect(lines).toContain('  acme/tool-histogram: {"read_note":2}')
    expect(lines).toContain('  title: "Read my release notes."')
    const json = await logbook(['show', id, '--projections', '--json', '--config', file], dir)
    const snapshot = JSON.parse(json.stdout) as { sessionId: string; values: Record<string, unknown>; faults: object }
    expect(snapshot.sessionId).toBe(id)
    expect(snapshot.values['acme/tool-histogram']).toEqual({ read_note: 2 })
    expect(snapshot.faults).toEqual({})
  })
})
