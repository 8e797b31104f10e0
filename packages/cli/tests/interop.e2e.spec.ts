import { createHash } from 'node:crypto'
import { copyFileSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'
import { lines, logbook } from './helpers/cli.ts'
import { tempDir } from './helpers/store.ts'

const fixtures = fileURLToPath(new URL('../../plugins/session-interop/tests/fixtures/', import.meta.url))
const CC = '5d0c4f3e-2a1b-4c8d-9e7f-112233445566'
const CODEX = '0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b'
const PI = '3f2a9c1e-7b6d-4e5f-9a8b-7c6d5e4f3a2b'

/** A fresh working directory holding copies of the three fixtures. */
function workspace(): string {
  const cwd = tempDir('logbook-interop-')
  for (const name of ['claude-code.jsonl', 'codex.jsonl', 'pi.jsonl']) copyFileSync(join(fixtures, name), join(cwd, name))
  return cwd
}

/** Every file below `dir` with its SHA-256 and mtime: equal before and after means nothing was written. */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {}
  const walk = (path: string): void => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const full = join(path, entry.name)
      if (entry.isDirectory()) walk(full)
      else out[relative(dir, full)] = `${createHash('sha256').update(readFileSync(full)).digest('hex')} ${statSync(full).mtimeMs}`
    }
  }
  try {
    walk(dir)
  } catch {
    return {}
  }
  return out
}

const rollout = (id: string, text: string): string => [
  { timestamp: '2026-03-03T09:00:00.000Z', type: 'session_meta', payload: { id, cwd: '/w' } },
  { timestamp: '2026-03-03T09:00:01.000Z', type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text }] } },
  { timestamp: '2026-03-03T09:00:02.000Z', type: 'response_item', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: `re: ${text}` }] } },
].map(line => `${JSON.stringify(line)}\n`).join('')

describe('logbook import --from and export --format (interop)', () => {
  it('L-181 claude-code: main, branch and subagent stored; each verifies ok; show is the source conversation', async () => {
    const cwd = workspace()
    const run = await logbook(['import', '--from', 'claude-code', 'claude-code.jsonl'], { cwd })
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    expect(lines(run.stdout)).toEqual([
      `claude-code.jsonl: claude-code session ${CC}, 30 records`,
      `  imported ${CC} (main): 45 events, 3 turns, 5 tool calls`,
      `  imported ${CC}-branch-1 (branch): 42 events, 3 turns, 4 tool calls; fork of ${CC} after seq 34`,
      `  imported ${CC}-agent-agent7 (subagent): 13 events, 1 turn, 1 tool call; subagent of ${CC}`,
      '  skipped: file-history-snapshot 1, mystery-future-record 1 (unknown type), queue-operation 1, system:turn_duration 1',
    ])
    for (const id of [CC, `${CC}-branch-1`, `${CC}-agent-agent7`]) {
      const verify = await logbook(['verify', id], { cwd })
      expect([id, verify.code, lines(verify.stdout)[0]]).toEqual([id, 0, expect.stringMatching(new RegExp(`^${id}: ok `))])
    }
    const show = lines((await logbook(['show', CC], { cwd })).stdout)
    expect(show.slice(0, 3)).toEqual(['you> Show me the weather files and read both.', 'thinking> Two files: README.md and main.py. Read them in parallel.', 'model> I\'ll read both files.'])
    expect(show).toContain('── compacted 11 surface nodes into a summary ──')
    expect(show.at(-1)).toBe('── turn 3 ended: interrupted ──')
    const branch = lines((await logbook(['show', `${CC}-branch-1`], { cwd })).stdout)
    expect(branch.slice(-4)).toEqual([`── forked from ${CC} after seq 34 ──`, 'you> Fix the KeyError.', 'model> I\'ll patch main.py to use CITIES.get.', '── turn 3 ended: completed ──'])
    const openai = JSON.parse((await logbook(['export', CC, '--format', 'openai-messages'], { cwd })).stdout) as { model: string; messages: { role: string; content: string | null }[] }
    expect(openai.model).toBe('claude-sonnet-4-5-20250929')
    expect(openai.messages.map(message => message.role)).toEqual(['user', 'user', 'assistant', 'user', 'tool'])
    expect(openai.messages[1]!.content).toBe('Actually, first add a test for the KeyError.')
  })

  it('L-182 codex: one session whose surface is the system head, the summary and the last turn', async () => {
    const cwd = workspace()
    const run = await logbook(['import', '--from', 'codex', 'codex.jsonl'], { cwd })
    expect(run.code).toBe(0)
    expect(lines(run.stdout)[1]).toBe(`  imported ${CODEX} (main): 43 events, 3 turns, 4 tool calls`)
    expect((await logbook(['verify', CODEX], { cwd })).code).toBe(0)
    const surface = lines((await logbook(['show', CODEX, '--surface'], { cwd })).stdout)
    expect(surface[0]).toBe('system> Follow AGENTS.md: run the tests before you finish.')
    expect(surface[1]).toMatch(/^summary> Earlier conversation was compacted/)
    expect(surface).toContain('you> Add a test for it.')
    expect(surface).not.toContain('you> Run it for Paris.')
  })

  it('L-183 pi: the newest branch and its fork both verify ok', async () => {
    const cwd = workspace()
    const run = await logbook(['import', '--from', 'pi', 'pi.jsonl'], { cwd })
    expect(run.code).toBe(0)
    expect(lines(run.stdout).slice(1, 3)).toEqual([
      `  imported ${PI} (main): 41 events, 3 turns, 4 tool calls`,
      `  imported ${PI}-branch-1 (branch): 38 events, 3 turns, 3 tool calls; fork of ${PI} after seq 30`,
    ])
    for (const id of [PI, `${PI}-branch-1`]) expect((await logbook(['verify', id], { cwd })).code).toBe(0)
    const list = lines((await logbook(['list'], { cwd })).stdout)
    expect(list.some(row => row.startsWith(PI) && row.includes('Weather KeyError'))).toBe(true)
  })

  it('L-187 malformed sources are refused in one line with exit 1, and the store is left byte for byte', async () => {
    const cwd = workspace()
    expect((await logbook(['import', '--from', 'codex', 'codex.jsonl'], { cwd })).code).toBe(0)
    const before = tree(join(cwd, '.logbook'))
    const good = readFileSync(join(cwd, 'claude-code.jsonl'), 'utf8').split('\n')
    writeFileSync(join(cwd, 'not-json.jsonl'), [good[2], '{"type":"user", oops', ...good.slice(3)].join('\n'))
    writeFileSync(join(cwd, 'orphan-parent.jsonl'), `${good[3]}\n`)
    writeFileSync(join(cwd, 'empty.jsonl'), '')
    writeFileSync(join(cwd, 'no-header.jsonl'), readFileSync(join(cwd, 'pi.jsonl'), 'utf8').split('\n').slice(1).join('\n'))
    const cases: [string, string, RegExp][] = [
      ['claude-code', 'not-json.jsonl', /: line 2 is not JSON: .* \[SOURCE_NOT_JSON\]$/],
      ['claude-code', 'orphan-parent.jsonl', /: line 1: record a1 names parent u1, which is not in the file \[SOURCE_MALFORMED\]$/],
      ['codex', 'empty.jsonl', /empty\.jsonl: the file is empty \[SOURCE_EMPTY\]$/],
      ['pi', 'no-header.jsonl', /: line 1 is not a pi session header \(\{"type":"session",…\}\) \[SOURCE_MALFORMED\]$/],
    ]
    for (const [from, file, message] of cases) {
      const run = await logbook(['import', '--from', from, file], { cwd })
      expect([file, run.code, run.stdout]).toEqual([file, 1, ''])
      expect(lines(run.stderr)).toHaveLength(1)
      expect(run.stderr.trim()).toMatch(message)
      expect(run.stderr.startsWith(`logbook: ${join(cwd, file)}`)).toBe(true)
    }
    const taken = await logbook(['import', '--from', 'claude-code', 'claude-code.jsonl', '--as', CODEX], { cwd })
    expect(taken.code).toBe(4)
    expect(lines(taken.stderr)).toEqual([`logbook: session "${CODEX}" already exists and is not an import of this source; import under another id with --as <id> [SESSION_ALREADY_EXISTS]`])
    expect(tree(join(cwd, '.logbook'))).toEqual(before)
  })

  it('L-188 --dry-run prints the same summary and writes nothing; a second import is already imported; --force replaces', async () => {
    const cwd = workspace()
    const dry = await logbook(['import', '--from', 'pi', 'pi.jsonl', '--dry-run'], { cwd })
    expect(dry.code).toBe(0)
    expect(tree(join(cwd, '.logbook'))).toEqual({})
    const real = await logbook(['import', '--from', 'pi', 'pi.jsonl'], { cwd })
    expect(lines(real.stdout)).toEqual(lines(dry.stdout).map(line => line.replace('would import', 'imported')))
    const stored = tree(join(cwd, '.logbook'))
    const again = await logbook(['import', '--from', 'pi', 'pi.jsonl'], { cwd })
    expect(again.code).toBe(0)
    expect(lines(again.stdout).slice(1, 3).every(line => line.startsWith('  already imported '))).toBe(true)
    expect(tree(join(cwd, '.logbook'))).toEqual(stored)
    const events = (await logbook(['show', PI, '--json'], { cwd })).stdout
    const forced = await logbook(['import', '--from', 'pi', 'pi.jsonl', '--force'], { cwd })
    expect(lines(forced.stdout)[1]).toBe(`  replaced ${PI} (main): 41 events, 3 turns, 4 tool calls`)
    expect((await logbook(['show', PI, '--json'], { cwd })).stdout).toBe(events)
    expect((await logbook(['verify', `${PI}-branch-1`], { cwd })).code).toBe(0)
  })

  it('L-189 a folder imports every .jsonl below it with progress; a refused file does not stop the others', async () => {
    const cwd = tempDir('logbook-interop-')
    mkdirSync(join(cwd, 'sessions', '2026', '03'), { recursive: true })
    for (let n = 1; n <= 21; n++) writeFileSync(join(cwd, 'sessions', '2026', '03', `rollout-${String(n).padStart(2, '0')}.jsonl`), rollout(`codex-${n}`, `prompt ${n}`))
    writeFileSync(join(cwd, 'sessions', 'broken.jsonl'), '{"type":"session_meta",\n{}\n')
    writeFileSync(join(cwd, 'sessions', 'notes.txt'), 'not a transcript')
    const run = await logbook(['import', '--from', 'codex', 'sessions', '--progress'], { cwd })
    expect(run.code).toBe(1)
    const out = lines(run.stdout)
    expect(out.filter(line => line.startsWith('  imported codex-'))).toHaveLength(21)
    expect(out.at(-1)).toBe('sessions: 22 files, 21 sessions imported, 0 already imported, 1 files refused')
    const err = lines(run.stderr)
    expect(err[0]).toBe('logbook: import sessions: 0/22')
    expect(err.at(-1)).toBe('logbook: import sessions: 22/22')
    const refused = err.filter(line => !line.startsWith('logbook: import sessions: '))
    expect(refused).toHaveLength(1)
    expect(refused[0]!.startsWith(`logbook: ${join(cwd, 'sessions', 'broken.jsonl')}: line 1 is not JSON: `)).toBe(true)
    expect(refused[0]!.endsWith(' [SOURCE_NOT_JSON]')).toBe(true)
    const again = await logbook(['import', '--from', 'codex', 'sessions'], { cwd })
    expect(lines(again.stdout).at(-1)).toBe('sessions: 22 files, 0 sessions imported, 21 already imported, 1 files refused')
    const header = JSON.parse(lines((await logbook(['export', 'codex-7', '--format', 'jsonl'], { cwd })).stdout)[0]!) as { header: { importedFrom: unknown } }
    expect(header.header.importedFrom).toEqual({ tool: 'codex', file: join('sessions', '2026', '03', 'rollout-07.jsonl'), sourceId: 'codex-7' })
  })

  it('L-190 export --format anthropic-messages: system apart, tool_use and tool_result blocks, results first', async () => {
    const cwd = workspace()
    await logbook(['import', '--from', 'codex', 'codex.jsonl'], { cwd })
    const run = await logbook(['export', CODEX, '--format', 'anthropic-messages'], { cwd })
    expect(run.code).toBe(0)
    const body = JSON.parse(run.stdout) as { model: string; system: string; messages: { role: string; content: { type: string }[] }[] }
    expect(body.system).toBe('Follow AGENTS.md: run the tests before you finish.')
    expect(body.model).toBe('gpt-5.1-codex')
    expect(body.messages.map(message => [message.role, message.content.map(block => block.type).join(',')])).toEqual([
      ['user', 'text,text'], ['assistant', 'tool_use'], ['user', 'tool_result'],
    ])
  })

  it('L-191 export --format otel-genai: spans per turn, response and call; the same export twice is byte-identical', async () => {
    const cwd = workspace()
    await logbook(['import', '--from', 'claude-code', 'claude-code.jsonl'], { cwd })
    const first = await logbook(['export', CC, '--format', 'otel-genai'], { cwd })
    const second = await logbook(['export', CC, '--format', 'otel-genai', '--out', 'spans.json'], { cwd })
    expect([first.code, second.code]).toEqual([0, 0])
    expect(readFileSync(join(cwd, 'spans.json'), 'utf8')).toBe(first.stdout)
    const spans = (JSON.parse(first.stdout) as { resourceSpans: { scopeSpans: { spans: { name: string; attributes: { key: string; value: { stringValue?: string } }[] }[] }[] }[] })
      .resourceSpans[0]!.scopeSpans[0]!.spans
    expect(spans.filter(span => span.name === 'invoke_agent')).toHaveLength(3)
    expect(spans.filter(span => span.name.startsWith('chat '))).toHaveLength(6)
    expect(spans.filter(span => span.name.startsWith('execute_tool '))).toHaveLength(5)
    expect(spans.every(span => span.attributes.some(a => a.key === 'gen_ai.conversation.id' && a.value.stringValue === CC))).toBe(true)
  })

  it('L-192 --as names a single file\'s session; usage errors for a bad source, --as with a folder, and logbook-only flags', async () => {
    const cwd = workspace()
    const run = await logbook(['import', '--from', 'codex', 'codex.jsonl', '--as', 'mine', '--json'], { cwd })
    expect(run.code).toBe(0)
    const report = JSON.parse(run.stdout) as { file: string; tool: string; sessions: { id: string; action: string }[]; unknownTypes: string[] }
    expect(report).toMatchObject({ file: 'codex.jsonl', tool: 'codex', sessions: [{ id: 'mine', action: 'create' }], unknownTypes: ['world_state'] })
    mkdirSync(join(cwd, 'dir'))
    copyFileSync(join(cwd, 'codex.jsonl'), join(cwd, 'dir', 'a.jsonl'))
    const usage: [string[], string][] = [
      [['import', '--from', 'cursor', 'codex.jsonl'], 'logbook: unknown import source "cursor" (expected logbook, claude-code, codex or pi) [USAGE]'],
      [['import', '--from', 'codex', 'dir', '--as', 'x'], 'logbook: option --as names one session; it cannot be used with a folder [USAGE]'],
      [['import', 'codex.jsonl', '--dry-run'], 'logbook: option --dry-run applies to --from claude-code|codex|pi [USAGE]'],
    ]
    for (const [args, message] of usage) {
      const refused = await logbook(args, { cwd })
      expect([refused.code, lines(refused.stderr)]).toEqual([2, [message]])
    }
  })
})
