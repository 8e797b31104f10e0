import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { lines, logbook } from './helpers/cli.ts'
import { storeEvents, tempDir, turnEvents, withStore } from './helpers/store.ts'

describe('logbook usage and errors', () => {
  const cwd = tempDir()

  it('L-112 logbook alone prints usage on stderr and exits 2', async () => {
    const run = await logbook([], { cwd })
    expect(run.code).toBe(2)
    expect(run.stdout).toBe('')
    expect(run.stderr).toMatch(/^Usage: logbook <command> \[options\]/)
    expect(run.stderr).toContain('verify <id|path>')
  })

  it('L-112 --help prints usage on stdout and exits 0; per command too', async () => {
    const run = await logbook(['--help'], { cwd })
    expect(run.code).toBe(0)
    expect(run.stderr).toBe('')
    expect(run.stdout).toMatch(/^Usage: logbook <command> \[options\]/)
    const fork = await logbook(['fork', '--help'], { cwd })
    expect(fork.code).toBe(0)
    expect(fork.stdout).toMatch(/^Usage: logbook fork <id> \[--at <seq>\] \[--as <child>\]/)
  })

  it('L-112 --version prints the package version on stdout', async () => {
    const run = await logbook(['--version'], { cwd })
    expect(run.code).toBe(0)
    expect(run.stdout).toBe('0.1.0\n')
  })

  it('L-112 an unknown flag is one line and exit 2', async () => {
    const run = await logbook(['list', '--bogus'], { cwd })
    expect(run.code).toBe(2)
    expect(run.stdout).toBe('')
    expect(lines(run.stderr)).toEqual(['logbook: unknown option --bogus [USAGE]'])
  })

  it('L-112 bad arguments are usage errors: unknown command, --json elsewhere, a missing value', async () => {
    expect(lines((await logbook(['frobnicate'], { cwd })).stderr)).toEqual(['logbook: unknown command "frobnicate" [USAGE]'])
    const json = await logbook(['export', 'x', '--format', 'jsonl', '--json'], { cwd })
    expect(json.code).toBe(2)
    expect(lines(json.stderr)).toEqual(['logbook: option --json is not valid for export [USAGE]'])
    const missing = await logbook(['fork', 'x', '--at'], { cwd })
    expect(missing.code).toBe(2)
    expect(lines(missing.stderr)).toEqual(['logbook: option --at requires a value [USAGE]'])
    const id = await logbook(['show', 'a/b'], { cwd })
    expect(id.code).toBe(2)
    expect(lines(id.stderr)).toEqual(['logbook: invalid session id "a/b" [INVALID_SESSION_ID]'])
  })

  it('L-112 show nope is SESSION_NOT_FOUND, exit 3, and creates nothing', async () => {
    const run = await logbook(['show', 'nope'], { cwd })
    expect(run.code).toBe(3)
    expect(run.stdout).toBe('')
    expect(lines(run.stderr)).toEqual(['logbook: session "nope" not found [SESSION_NOT_FOUND]'])
    expect(existsSync(join(cwd, '.logbook'))).toBe(false)
  })

  it('L-112 LOGBOOK_DEBUG=1 adds the stack after the one error line', async () => {
    const run = await logbook(['show', 'nope'], { cwd, env: { LOGBOOK_DEBUG: '1' } })
    expect(run.code).toBe(3)
    const out = lines(run.stderr)
    expect(out[0]).toBe('logbook: session "nope" not found [SESSION_NOT_FOUND]')
    expect(out.length).toBeGreaterThan(2)
    expect(out.slice(1).some(line => /^\s+at /.test(line))).toBe(true)
  })

  it('--dir, else $LOGBOOK_DIR, else ./.logbook is the store; --config ignores --dir', async () => {
    const here = tempDir()
    await withStore(join(here, 'a'), app => storeEvents(app, 'in-a', turnEvents(0, 1, 0, 'a')))
    await withStore(join(here, 'b'), app => storeEvents(app, 'in-b', turnEvents(0, 1, 0, 'b')))
    await withStore(join(here, '.logbook'), app => storeEvents(app, 'in-default', turnEvents(0, 1, 0, 'd')))
    const ids = async (args: string[], env: Record<string, string> = {}): Promise<string[]> => {
      const run = await logbook(['list', '--json', ...args], { cwd: here, env })
      expect(run.code).toBe(0)
      return (JSON.parse(run.stdout) as { items: { id: string }[] }).items.map(item => item.id)
    }
    expect(await ids([])).toEqual(['in-default'])
    expect(await ids(['--dir', 'a'])).toEqual(['in-a'])
    expect(await ids([], { LOGBOOK_DIR: join(here, 'b') })).toEqual(['in-b'])
    expect(await ids(['--dir', 'a'], { LOGBOOK_DIR: join(here, 'b') })).toEqual(['in-a'])
    const config = join(here, 'app', 'cordis.yml')
    mkdirSync(dirname(config))
    writeFileSync(config, [
      `- { id: session, name: '@logbook/session' }`,
      `- { id: persistence, name: '@logbook/session-persistence-jsonl', config: { root: ${JSON.stringify(join(here, 'b'))} } }`,
    ].join('\n'))
    expect(await ids(['--config', config, '--dir', 'a'])).toEqual(['in-b'])
  })

  it('an unusable store fails the embedded app with one line and exit 1', async () => {
    writeFileSync(join(cwd, 'not-a-dir'), 'x')
    const run = await logbook(['list', '--dir', 'not-a-dir'], { cwd })
    expect(run.code).toBe(1)
    const out = lines(run.stderr)
    expect(out).toHaveLength(1)
    expect(out[0]).toMatch(/^logbook: @logbook\/session-persistence-jsonl failed to start: .* \[BOOT_FAILED\]$/)
  })
})
