import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { DEMO_MODEL, DEMO_PROVIDER } from '../src/app/embedded.ts'
import { DEMO_PROMPTS, DEMO_SYSTEM } from '../src/demo/script.ts'
import { lines, logbook } from './helpers/cli.ts'
import { storeEvents, tempDir, turnEvents, withStore } from './helpers/store.ts'

describe('logbook export and import', () => {
  const cwd = tempDir()
  const root = join(cwd, '.logbook')

  beforeAll(async () => {
    await withStore(root, async (app) => {
      const agent = await app.agents().create({ sessionId: 'orig', options: { provider: DEMO_PROVIDER, model: DEMO_MODEL, system: DEMO_SYSTEM } })
      await agent.send(DEMO_PROMPTS.plan)
      await agent.dispose()
    })
  })

  it('L-116 export --format jsonl then import --as copy gives identical events', async () => {
    const exported = await logbook(['export', 'orig', '--format', 'jsonl', '--out', 'orig.jsonl'], { cwd })
    expect(exported.code).toBe(0)
    expect(exported.stdout).toBe('')
    const file = readFileSync(join(cwd, 'orig.jsonl'), 'utf8')
    const [head] = lines(file)
    expect(JSON.parse(head!)).toMatchObject({ logbook: 'export', formatVersion: 1, header: { version: 2, id: 'orig' } })
    const imported = await logbook(['import', 'orig.jsonl', '--as', 'copy'], { cwd })
    expect(imported.stderr).toBe('')
    expect(imported.code).toBe(0)
    expect(imported.stdout).toBe('copy\n')
    const original = await logbook(['show', 'orig', '--json'], { cwd })
    const copy = await logbook(['show', 'copy', '--json'], { cwd })
    expect(lines(copy.stdout).length).toBeGreaterThan(10)
    expect(copy.stdout).toBe(original.stdout)
    expect((await logbook(['verify', 'copy'], { cwd })).code).toBe(0)
  })

  it('L-141 an export whose header is format 1 imports, keeps version 1 and verifies ok', async () => {
    const file = readFileSync(join(cwd, 'orig.jsonl'), 'utf8')
    writeFileSync(join(cwd, 'v1.jsonl'), file.replace('"version":2', '"version":1'))
    const imported = await logbook(['import', 'v1.jsonl', '--as', 'old'], { cwd })
    expect(imported.stderr).toBe('')
    expect(imported.code).toBe(0)
    const verified = await logbook(['verify', 'old', '--json'], { cwd })
    expect(verified.code).toBe(0)
    expect(JSON.parse(verified.stdout).findings[0]).toEqual({ severity: 'ok', check: 'format', message: 'version 1' })
  })

  it('L-116 importing an existing id is SESSION_ALREADY_EXISTS (exit 4)', async () => {
    const run = await logbook(['import', 'orig.jsonl'], { cwd })
    expect(run.code).toBe(4)
    expect(lines(run.stderr)).toHaveLength(1)
    expect(run.stderr).toMatch(/\[SESSION_ALREADY_EXISTS\]\n$/)
  })

  it('L-116 import checks the export: format version, header version, every event', async () => {
    const file = readFileSync(join(cwd, 'orig.jsonl'), 'utf8')
    writeFileSync(join(cwd, 'v2.jsonl'), file.replace('"formatVersion":1', '"formatVersion":2'))
    const v2 = await logbook(['import', 'v2.jsonl', '--as', 'x1'], { cwd })
    expect(v2.code).toBe(1)
    expect(lines(v2.stderr)).toEqual([`logbook: ${join(cwd, 'v2.jsonl')}: export format 2 is not supported (this build reads 1) [INVALID_EXPORT]`])
    writeFileSync(join(cwd, 'newer.jsonl'), file.replace('"version":2', '"version":7'))
    const newer = await logbook(['import', 'newer.jsonl', '--as', 'x2'], { cwd })
    expect(newer.code).toBe(1)
    expect(newer.stderr).toMatch(/written by a newer Logbook \(format 7, this build reads 2\): upgrade Logbook.*\[SESSION_FORMAT_UNSUPPORTED\]/)
    writeFileSync(join(cwd, 'older.jsonl'), file.replace('"version":2', '"version":0'))
    const older = await logbook(['import', 'older.jsonl', '--as', 'x4'], { cwd })
    expect(older.code).toBe(1)
    expect(older.stderr).toMatch(/uses format 0, older than 1; there is no upgrade path.*\[SESSION_FORMAT_UNSUPPORTED\]/)
    const rows = file.split('\n')
    rows[4] = rows[4]!.replace('"turn":1', '"turn":0')
    writeFileSync(join(cwd, 'bad.jsonl'), rows.join('\n'))
    const bad = await logbook(['import', 'bad.jsonl', '--as', 'x3'], { cwd })
    expect(bad.code).toBe(1)
    expect(bad.stderr).toMatch(/bad\.jsonl: line 5: .*must be a positive safe integer \[INVALID_EXPORT\]\n$/)
    expect((await logbook(['show', 'x3'], { cwd })).code).toBe(3)
  })

  it('L-116 an open last turn is kept: import stores it as exported, for a resume to close', async () => {
    await withStore(root, app => storeEvents(app, 'open-turn', [...turnEvents(0, 1, 1_000, 'one'), ...turnEvents(6, 2, 2_000, 'two', { open: true })]))
    expect((await logbook(['export', 'open-turn', '--format', 'jsonl', '--out', 'open.jsonl'], { cwd })).code).toBe(0)
    const imported = await logbook(['import', 'open.jsonl', '--as', 'open-copy'], { cwd })
    expect(imported.code).toBe(0)
    const original = await logbook(['show', 'open-turn', '--json'], { cwd })
    const copy = await logbook(['show', 'open-copy', '--json'], { cwd })
    expect(lines(copy.stdout)).toHaveLength(11)
    expect(copy.stdout).toBe(original.stdout)
    const verify = await logbook(['verify', 'open-copy'], { cwd })
    expect(verify.code).toBe(5)
    expect(verify.stdout).toMatch(/ {2}warn {2}relations +turn 2 is open; a resume appends 1 closer\(s\)/)
  })

  it('L-116 import refuses an invalid header or id as an invalid export, naming the file', async () => {
    const file = readFileSync(join(cwd, 'orig.jsonl'), 'utf8')
    const [head, ...rest] = file.split('\n')
    const preamble = JSON.parse(head!) as { header: Record<string, unknown> }
    writeFileSync(join(cwd, 'bad-header.jsonl'), [JSON.stringify({ ...preamble, header: { ...preamble.header, createdAt: 'yesterday' } }), ...rest].join('\n'))
    const badHeader = await logbook(['import', 'bad-header.jsonl', '--as', 'x4'], { cwd })
    expect(badHeader.code).toBe(1)
    expect(lines(badHeader.stderr)).toEqual([
      `logbook: ${join(cwd, 'bad-header.jsonl')}: the header is invalid: session header createdAt must be a non-negative safe integer [INVALID_EXPORT]`,
    ])
    writeFileSync(join(cwd, 'bad-id.jsonl'), [JSON.stringify({ ...preamble, header: { ...preamble.header, id: 'a b' } }), ...rest].join('\n'))
    const badId = await logbook(['import', 'bad-id.jsonl'], { cwd })
    expect(badId.code).toBe(1)
    expect(lines(badId.stderr)).toEqual([
      `logbook: ${join(cwd, 'bad-id.jsonl')}: the header's id "a b" is not a valid session id (store it under another with --as <id>) [INVALID_EXPORT]`,
    ])
    const renamed = await logbook(['import', 'bad-id.jsonl', '--as', 'good-id'], { cwd })
    expect(renamed.code).toBe(0)
    expect(renamed.stdout).toBe('good-id\n')
  })

  it('L-117 export --format openai-messages: system first, assistant tool_calls, tool role results', async () => {
    const run = await logbook(['export', 'orig', '--format', 'openai-messages'], { cwd })
    expect(run.code).toBe(0)
    const body = JSON.parse(run.stdout) as { model: string; messages: { role: string; content: unknown; tool_calls?: unknown[]; tool_call_id?: string }[]; tools?: { type: string; function: { name: string } }[] }
    expect(body.model).toBe(DEMO_MODEL)
    expect(body.messages[0]).toEqual({ role: 'system', content: DEMO_SYSTEM })
    expect(body.messages[1]).toEqual({ role: 'user', content: DEMO_PROMPTS.plan })
    const withCalls = body.messages.filter(message => message.role === 'assistant' && message.tool_calls !== undefined)
    expect(withCalls).toHaveLength(3)
    expect(withCalls[1]!.tool_calls).toEqual([
      { id: expect.any(String), type: 'function', function: { name: 'read_note', arguments: '{"name":"release.md"}' } },
      { id: expect.any(String), type: 'function', function: { name: 'read_note', arguments: '{"name":"deploy.md"}' } },
    ])
    const results = body.messages.filter(message => message.role === 'tool')
    expect(results).toHaveLength(4)
    expect(results.every(result => typeof result.tool_call_id === 'string' && typeof result.content === 'string')).toBe(true)
    expect(body.tools?.map(tool => tool.function.name).sort()).toEqual(['deploy', 'list_notes', 'read_note', 'todo_write'])
  })
})
