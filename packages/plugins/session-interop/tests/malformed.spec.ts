import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { importClaudeCode, importCodex, importPi, InteropError, type ImportResult } from '../src/index.ts'
import { transcript } from './helpers.ts'

const jsonl = (...values: unknown[]): string => values.map(value => `${JSON.stringify(value)}\n`).join('')
const cc = (uuid: string, parent: string | null, type: 'user' | 'assistant', content: unknown, extra: Record<string, unknown> = {}) => ({
  type, uuid, parentUuid: parent, sessionId: 's1', timestamp: '2026-01-01T00:00:00.000Z',
  message: type === 'user' ? { role: 'user', content } : { id: `msg-${uuid}`, role: 'assistant', model: 'm', content }, ...extra,
})

async function refusal(run: Promise<ImportResult>): Promise<InteropError> {
  const error = await run.then(() => undefined, (e: unknown) => e)
  expect(error).toBeInstanceOf(InteropError)
  expect((error as Error).message.includes('\n')).toBe(false)
  return error as InteropError
}

describe('malformed sources', () => {
  it('L-187 a line that is not JSON refuses the file, naming the line', async () => {
    const text = `${JSON.stringify(cc('u1', null, 'user', 'hi'))}\n{not json\n${JSON.stringify(cc('a1', 'u1', 'assistant', []))}\n`
    const error = await refusal(importClaudeCode({ text }, { file: 'broken.jsonl' }))
    expect(error.code).toBe('SOURCE_NOT_JSON')
    expect(error.message).toMatch(/^broken\.jsonl: line 2 is not JSON: /)
  })

  it('L-187 a torn final line (no newline) is skipped and noted; the rest imports', async () => {
    const text = `${JSON.stringify(cc('u1', null, 'user', 'hi'))}\n{"type":"assistant","uuid":"a1","par`
    const { sessions, report } = await importClaudeCode({ text })
    expect(transcript(sessions[0]!.events)).toEqual(['user: hi'])
    expect(report.notes).toEqual(['the final line is incomplete (the file was being written) and was skipped'])
  })

  it('L-187 an empty file, or one of blank lines, is SOURCE_EMPTY', async () => {
    for (const text of ['', '\n\n  \n']) {
      const error = await refusal(importClaudeCode({ text }, { file: 'empty.jsonl' }))
      expect([error.code, error.message]).toEqual(['SOURCE_EMPTY', 'empty.jsonl: the file is empty'])
    }
    const none = await refusal(importClaudeCode({ text: jsonl({ type: 'file-history-snapshot', messageId: 'x' }) }, { file: 'meta.jsonl' }))
    expect([none.code, none.message]).toEqual(['SOURCE_EMPTY', 'meta.jsonl: the file holds no conversation to import'])
  })

  it('L-187 a record whose parent is not in the file, or a cycle, refuses the file', async () => {
    const missing = await refusal(importClaudeCode({ text: jsonl(cc('u1', null, 'user', 'hi'), cc('a1', 'gone', 'assistant', [])) }, { file: 't.jsonl' }))
    expect([missing.code, missing.message]).toEqual(['SOURCE_MALFORMED', 't.jsonl: line 2: record a1 names parent gone, which is not in the file'])
    const cycle = await refusal(importClaudeCode({ text: jsonl(cc('u1', 'a1', 'user', 'hi'), cc('a1', 'u1', 'assistant', [])) }, { file: 't.jsonl' }))
    expect(cycle.code).toBe('SOURCE_MALFORMED')
    expect(cycle.message).toMatch(/^t\.jsonl: line \d: the parents of record (u1|a1) form a cycle$/)
  })

  it('L-184 an orphan tool result is skipped and reported; the import goes on', async () => {
    const text = jsonl(
      cc('u1', null, 'user', 'hi'),
      cc('r1', 'u1', 'user', [{ type: 'tool_result', tool_use_id: 'toolu_nobody', content: 'stray' }]),
      cc('a1', 'r1', 'assistant', [{ type: 'text', text: 'hello' }]),
    )
    const { sessions, report } = await importClaudeCode({ text })
    expect(transcript(sessions[0]!.events)).toEqual(['user: hi', 'assistant: hello'])
    expect(report.skipped).toEqual({ 'tool result without its call': 1 })
    expect(report.notes).toEqual(['a tool result for call toolu_nobody, which no open model response requested, was skipped'])
  })

  it('L-187 pi without its session header and Codex without session_meta are SOURCE_MALFORMED', async () => {
    const pi = await refusal(importPi({ text: jsonl({ type: 'message', id: 'e1', parentId: null, message: { role: 'user', content: 'x' } }) }, { file: 'p.jsonl' }))
    expect([pi.code, pi.message]).toEqual(['SOURCE_MALFORMED', 'p.jsonl: line 1 is not a pi session header ({"type":"session",…})'])
    const codex = await refusal(importCodex({ text: jsonl({ type: 'response_item', payload: { type: 'message', role: 'user', content: [] } }) }, { file: 'c.jsonl' }))
    expect([codex.code, codex.message]).toEqual(['SOURCE_MALFORMED', 'c.jsonl: no session_meta record: this is not a Codex rollout'])
  })

  it('L-192 a source id Logbook cannot use is INVALID_SESSION_ID unless an id is given', async () => {
    const text = jsonl({ ...cc('u1', null, 'user', 'hi'), sessionId: 'has spaces' })
    const error = await refusal(importClaudeCode({ text }, { file: 'x.jsonl' }))
    expect([error.code, error.message]).toEqual(['INVALID_SESSION_ID', 'x.jsonl: the source session id "has spaces" is not a valid Logbook session id (import it under another id)'])
    const { sessions } = await importClaudeCode({ text }, { id: 'fine' })
    expect(sessions[0]!.header.id).toBe('fine')
  })

  it('L-187 a path that cannot be read is SOURCE_UNREADABLE naming it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'interop-'))
    const error = await refusal(importPi({ path: join(dir, 'missing.jsonl') }))
    expect(error.code).toBe('SOURCE_UNREADABLE')
    expect(error.message.startsWith(`${join(dir, 'missing.jsonl')}: cannot read the file: `)).toBe(true)
    writeFileSync(join(dir, 'ok.jsonl'), jsonl({ type: 'session', id: 'p1' }, { type: 'message', id: 'e1', parentId: null, message: { role: 'user', content: 'x' } }))
    expect((await importPi({ path: join(dir, 'ok.jsonl') })).report.file).toBe(join(dir, 'ok.jsonl'))
  })

  it('L-184 records that are not objects, unknown block types and unknown record types are counted, never a crash', async () => {
    const text = jsonl(
      42,
      { type: 'brand-new-kind', uuid: 'z' },
      cc('u1', null, 'user', [{ type: 'text', text: 'hi' }, { type: 'document', source: {} }]),
      cc('a1', 'u1', 'assistant', [{ type: 'server_tool_use', id: 'x' }, { type: 'text', text: 'ok' }]),
    )
    const { report } = await importClaudeCode({ text })
    expect(report.skipped).toEqual({ 'brand-new-kind': 1, 'content block document': 1, 'content block server_tool_use': 1, 'not a JSON object': 1 })
    expect(report.unknownTypes).toEqual(['brand-new-kind'])
  })
})
