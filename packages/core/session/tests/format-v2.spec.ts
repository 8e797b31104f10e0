/** Session format 2 (01 §2.4): readable versions, the import-source header field and the item-I event shapes. */

import { describe, expect, it } from 'vitest'
import {
  assertSessionEvent, assertSessionHeader, isSupportedSessionFormat, MessageId, Session, SESSION_FORMAT_VERSION,
  SessionError, SUPPORTED_SESSION_FORMAT_VERSIONS, type AssistantMessage, type SessionEvent,
} from '../src/index.ts'
import { payloadProblem } from '../src/payload.ts'
import { makeApp, sid } from './harness.ts'

const id = sid('s1')

function headerFailure(value: unknown): string {
  try {
    assertSessionHeader(value, id)
  } catch (error) {
    expect(error).toBeInstanceOf(SessionError)
    expect((error as SessionError).code).toBe('INVALID_HEADER')
    return (error as SessionError).message
  }
  throw new Error('header accepted')
}

const refusal: AssistantMessage = {
  id: MessageId('a1'), role: 'assistant',
  content: [{ type: 'reasoning', text: 'r' }, { type: 'refusal', text: 'I cannot help with that.' }],
  source: { kind: 'model', provider: 'p', model: 'm' },
}

describe('format versions (01 §2.4)', () => {
  it('S-138 this build writes format 2 and reads formats 1 and 2; a new session is stamped 2', () => {
    expect(SESSION_FORMAT_VERSION).toBe(2)
    expect(SUPPORTED_SESSION_FORMAT_VERSIONS).toEqual([1, 2])
    expect(Object.isFrozen(SUPPORTED_SESSION_FORMAT_VERSIONS)).toBe(true)
    expect([0, 1, 2, 3, 1.5, '2', undefined].map(isSupportedSessionFormat)).toEqual([false, true, true, false, false, false, false])
    expect(Session.create(id).header.version).toBe(2)
    const v1 = Session.fromRestore(id, { seed: [], header: { version: 1, id, createdAt: 1 }, inheritedEventCount: 0, eventState: 'detached' })
    expect(v1.header.version).toBe(1)
    expect(headerFailure({ version: 3, id: 's1', createdAt: 0 })).toBe('session header version must be 1 or 2, got 3')
  })
})

describe('importedFrom (01 §1.5, §5.6 check 13)', () => {
  const base = { version: 2, id: 's1', createdAt: 0 }

  it('S-139 a full or a tool-only import source is accepted; every string must be non-empty; unknown keys are refused', () => {
    const full = { tool: 'claude-code', file: 'sessions/a.jsonl', sourceId: 'abc', leaf: 'u7' }
    expect(() => assertSessionHeader({ ...base, importedFrom: full }, id)).not.toThrow()
    expect(() => assertSessionHeader({ ...base, importedFrom: { tool: 'pi' } }, id)).not.toThrow()
    const cases: [unknown, string][] = [
      [null, 'session header importedFrom must be a plain object'],
      ['codex', 'session header importedFrom must be a plain object'],
      [[{ tool: 'pi' }], 'session header importedFrom must be a plain object'],
      [{}, 'session header importedFrom.tool must be a non-empty string'],
      [{ tool: '' }, 'session header importedFrom.tool must be a non-empty string'],
      [{ tool: 7 }, 'session header importedFrom.tool must be a non-empty string'],
      [{ tool: 'pi', file: '' }, 'session header importedFrom.file must be a non-empty string'],
      [{ tool: 'pi', sourceId: 1 }, 'session header importedFrom.sourceId must be a non-empty string'],
      [{ tool: 'pi', leaf: '' }, 'session header importedFrom.leaf must be a non-empty string'],
      [{ tool: '', path: 'x' }, 'session header importedFrom has unknown field "path"'],
    ]
    for (const [importedFrom, message] of cases) expect(headerFailure({ ...base, importedFrom })).toBe(message)
  })

  it('S-139 importedFrom is checked after agentPreset and before the seeded-header relations', () => {
    expect(headerFailure({ ...base, agentPreset: '', importedFrom: {} })).toBe('session header agentPreset must be a non-empty string')
    expect(headerFailure({ ...base, importedFrom: {}, isSeeded: true })).toBe('session header importedFrom.tool must be a non-empty string')
  })

  it('S-140 meta.importedFrom becomes the last header field, frozen; a fork child does not inherit it', async () => {
    const { store } = await makeApp()
    const importedFrom = { tool: 'codex', file: 'rollout.jsonl', sourceId: 'x1' }
    const parent = store.create(sid('P'), { meta: { cwd: '/w', importedFrom, agentPreset: 'a' } })
    expect(Object.keys(parent.header)).toEqual(['version', 'id', 'createdAt', 'cwd', 'agentPreset', 'importedFrom'])
    expect(parent.header.importedFrom).toEqual(importedFrom)
    expect(parent.header.importedFrom).not.toBe(importedFrom)
    expect(Object.isFrozen(parent.header.importedFrom)).toBe(true)
    parent.append('turn/start', { turn: 1 })
    const child = store.fork(parent)
    expect(child.header).not.toHaveProperty('importedFrom')
    expect(child.header).toMatchObject({ version: 2, cwd: '/w', agentPreset: 'a', parentSession: 'P' })
    expect(() => store.create(sid('bad'), { meta: { importedFrom: { tool: 'pi', extra: 1 } as never } }))
      .toThrow('session header importedFrom has unknown field "extra"')
    expect(store.get(sid('bad'))).toBeUndefined()
  })
})

describe('format-2 event shapes (01 §1.2–§2.3)', () => {
  const chunk = (value: unknown): unknown => ({ turn: 1, step: 1, chunk: value })

  it('S-141 a refusal is an assistant part, streamed by block-start/refusal-delta/block-end; deriveMessages keeps it', () => {
    const valid: [string, unknown][] = [
      ['assistant/chunk', chunk({ type: 'block-start', index: 0, blockType: 'refusal' })],
      ['assistant/chunk', chunk({ type: 'refusal-delta', index: 0, text: 'I cannot' })],
      ['assistant/chunk', chunk({ type: 'block-end', index: 0, block: { type: 'refusal', text: 'I cannot' } })],
      ['assistant/message', { turn: 1, step: 1, message: refusal }],
    ]
    for (const [type, data] of valid) expect([type, payloadProblem(type, data)]).toEqual([type, undefined])
    const invalid: [string, unknown, string][] = [
      ['assistant/chunk', chunk({ type: 'refusal-delta', index: 0 }), 'data.chunk.text is required'],
      ['assistant/chunk', chunk({ type: 'block-end', index: 0, block: { type: 'refusal', text: 1 } }), 'data.chunk.block.text must be a string'],
      ['assistant/chunk', chunk({ type: 'block-start', index: 0, blockType: 'image' }),
        'data.chunk.blockType must be one of "text", "reasoning", "refusal", "tool-call"'],
      ['assistant/message', { turn: 1, step: 1, message: { ...refusal, content: [{ type: 'refusal', text: 'x', why: 1 }] } },
        'data.message.content[0].why is not allowed'],
      ['user/message', { id: 'u', role: 'user', content: [{ type: 'refusal', text: 'x' }], source: { kind: 'user' } },
        'data.content[0].type must be one of "text", "image"'],
    ]
    for (const [type, data, message] of invalid) expect(payloadProblem(type, data)).toBe(`event "${type}": ${message}`)
    const s = Session.create(id)
    s.append('turn/start', { turn: 1 })
    s.append('assistant/message', { turn: 1, step: 1, message: refusal }, { surfaceOp: 'append' })
    expect(s.deriveMessages()).toEqual([refusal])
  })

  it('S-142 finish keeps the raw finish reason; assistant/message records it and marks missing usage', () => {
    const message = { turn: 1, step: 1, message: refusal }
    const valid: [string, unknown][] = [
      ['assistant/chunk', chunk({ type: 'finish', reason: 'error', error: { message: 'm', code: 'PROVIDER' }, rawFinishReason: 'insufficient_system_resource' })],
      ['assistant/message', { ...message, usageMissing: true, rawFinishReason: 'stop' }],
      ['assistant/message', { ...message, usage: { inputTokens: 1, outputTokens: 2 }, rawFinishReason: 'length' }],
    ]
    for (const [type, data] of valid) expect([type, payloadProblem(type, data)]).toEqual([type, undefined])
    const invalid: [string, unknown, string][] = [
      ['assistant/chunk', chunk({ type: 'finish', reason: 'stop', rawFinishReason: '' }), 'data.chunk.rawFinishReason must be a non-empty string'],
      ['assistant/message', { ...message, usageMissing: false }, 'data.usageMissing must be true'],
      ['assistant/message', { ...message, rawFinishReason: 3 }, 'data.rawFinishReason must be a non-empty string'],
      ['assistant/message', { ...message, usage: { inputTokens: 1, outputTokens: 2 }, usageMissing: true },
        'data.usageMissing is not allowed with data.usage'],
    ]
    for (const [type, data, text] of invalid) expect(payloadProblem(type, data)).toBe(`event "${type}": ${text}`)
    const stored = { type: 'assistant/message', seq: 0, time: 0, data: { ...message, usageMissing: true }, surfaceOp: 'append' }
    expect(() => assertSessionEvent(stored as unknown as SessionEvent)).not.toThrow()
  })
})
