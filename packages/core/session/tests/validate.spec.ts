import { describe, expect, it } from 'vitest'
import { SessionError } from '../src/errors.ts'
import { payloadProblem } from '../src/payload.ts'
import { assertSessionEvent, contentProblem, envelopeProblem, surfaceMetaProblem } from '../src/validate.ts'
import { CORE_SESSION_EVENT_TYPES, isSurfaceType, isValidEventTypeName } from '../src/vocabulary.ts'

type Json = Record<string, unknown>

/** A deep copy of `base` changed by `edit`. */
function mut<T>(base: T, edit: (draft: Json) => void): Json {
  const draft = structuredClone(base) as Json
  edit(draft)
  return draft
}

const text = { type: 'text', text: 'hi' }
const image = {
  type: 'image',
  image: { uri: 'file:///a.png', mediaType: 'image/png', width: 1, height: 2, bytes: 0, sha256: 'a'.repeat(64), name: 'a' },
}
const userMessage = { id: 'm1', role: 'user', content: [text, image], source: { kind: 'user' } }
const systemMessage = { id: 's1', role: 'system', content: [text], source: { kind: 'system' } }
const assistantData = {
  turn: 1, step: 1,
  message: {
    id: 'a1', role: 'assistant',
    content: [{ type: 'reasoning', text: 'r' }, text, { type: 'tool-call', id: 'c1', name: 'read', arguments: '{}' }],
    source: { kind: 'model', provider: 'p', model: 'm', replayState: { opaque: [1, 'x'] } },
  },
  usage: { inputTokens: 1, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 3, reasoningTokens: 4 },
  interrupted: true,
}
const toolResultData = {
  turn: 1, step: 1,
  message: {
    id: 'r1', role: 'user',
    content: [{ type: 'tool-result', toolCallId: 'c1', content: [text, image], isError: false }],
    source: { kind: 'tool', callId: 'c1' },
  },
  error: { name: 'E', code: 'X' },
  meta: { anything: [1, null] },
}
const requestHeaderData = {
  header: {
    config: { provider: 'p', model: 'm', reasoningEffort: 'high', maxTokens: 10, temperature: 0.5, topP: 0.9 },
    tools: [{ name: 'read', description: '', parameters: { type: 'object' } }],
  },
  reason: 'initial',
}

/** One valid payload per core type (several for unions). */
const VALID: [string, unknown][] = [
  ['turn/start', { turn: 1 }],
  ['turn/end', { turn: 1, reason: { kind: 'completed' } }],
  ['turn/end', { turn: 2, reason: { kind: 'aborted', reason: { kind: 'parent' } } }],
  ['turn/end', { turn: 2, reason: { kind: 'error', error: { message: '', code: 'E', status: 500, retryAfterMs: 0, requestId: 'q' } } }],
  ['turn/end', { turn: 2, reason: { kind: 'custom', anything: { goes: 1 } } }],
  ['step/start', { turn: 1, step: 1 }],
  ['step/end', { turn: 1, step: 2 }],
  ['system/message', systemMessage],
  ['system/message', { ...systemMessage, source: { kind: 'plugin', plugin: 'x' } }],
  ['user/message', userMessage],
  ['user/message', { ...userMessage, source: { kind: 'plugin', plugin: 'x' } }],
  ['user/message', { ...userMessage, source: { kind: 'cron', job: 'x' } }],
  ['assistant/chunk', { turn: 1, step: 1, chunk: { type: 'text-delta', index: 0, text: 'a' } }],
  ['assistant/chunk', { turn: 1, step: 1, chunk: { type: 'block-start', index: 0, blockType: 'tool-call', extra: 1 } }],
  ['assistant/chunk', { turn: 1, step: 1, chunk: { type: 'tool-call-delta', index: 1, id: '', name: 'n', argumentsDelta: '' } }],
  ['assistant/chunk', { turn: 1, step: 1, chunk: { type: 'block-end', index: 0, block: { type: 'reasoning', text: 'r' } } }],
  ['assistant/chunk', { turn: 1, step: 1, chunk: { type: 'usage', usage: { inputTokens: 0, outputTokens: 0 } } }],
  ['assistant/chunk', { turn: 1, step: 1, chunk: { type: 'finish', reason: 'error', error: { message: 'm', code: 'c' } } }],
  ['assistant/chunk', { turn: 1, step: 1, chunk: { type: 'future' } }],
  ['assistant/message', assistantData],
  ['assistant/message', { turn: 1, step: 1, message: { ...assistantData.message, content: [] } }],
  ['tool/call', { turn: 1, step: 1, callId: 'c1', name: 'read', arguments: '' }],
  ['tool/result', toolResultData],
  ['tool/result', { ...toolResultData, message: { ...toolResultData.message, content: [{ type: 'tool-result', toolCallId: 'c1', content: [] }] } }],
  ['todo/write', { todos: [] }],
  ['todo/write', { todos: [{ content: 'a', status: 'in_progress' }] }],
  ['request/header', requestHeaderData],
  ['request/header', { header: { config: { provider: 'p', model: 'm' } }, reason: 'change' }],
  ['request/context', { provider: 'p', model: 'm', contextWindow: 1000 }],
  ['session/end-seed', {}],
  ['session/end-seed', { inherited: true }],
  ['plugin/x', { anything: [1, 'two'] }],
  ['plugin/x', null],
]

/** The payloads of S-019–S-032 with their exact messages (type, data, message). */
const REJECTED: [string, Json, string][] = [
  ['user/message', mut(userMessage, (d) => { delete d.id }), 'event "user/message": data.id is required'],
  ['user/message', mut(userMessage, (d) => { d.content = [] }), 'event "user/message": data.content must be a non-empty array'],
  ['user/message', mut(userMessage, (d) => { d.content = [toolResultData.message.content[0]] }),
    'event "user/message": data.content[0].type must be one of "text", "image"'],
  ['user/message', mut(userMessage, (d) => { d.meta = 1 }), 'event "user/message": data.meta is not allowed'],
  ['user/message', mut(userMessage, (d) => { d.source = { kind: 'model' } }), 'event "user/message": data.source.kind must not be "model"'],
  ['user/message', mut(userMessage, (d) => { d.source = { kind: 'plugin' } }), 'event "user/message": data.source.plugin is required'],
  ['assistant/message', mut(assistantData, (d) => { delete (d.message as { source: Json }).source.provider }),
    'event "assistant/message": data.message.source.provider is required'],
  ['tool/result', mut(toolResultData, (d) => {
    const m = d.message as { content: unknown[] }
    m.content.push(m.content[0])
  }), 'event "tool/result": data.message.content must hold exactly one tool-result block'],
  ['tool/result', mut(toolResultData, (d) => { (d.message as { source: Json }).source.callId = 'c2' }),
    'event "tool/result": data.message.content[0].toolCallId must equal data.message.source.callId'],
  ['system/message', mut(systemMessage, (d) => { d.content = [image] }), 'event "system/message": data.content[0].type must be one of "text"'],
  ['user/message', mut(userMessage, (d) => { (d.content as { image: Json }[])[1]!.image.sha256 = 'ABC' }),
    'event "user/message": data.content[1].image.sha256 must be 64 lowercase hex digits'],
  ['turn/start', { turn: 0 }, 'event "turn/start": data.turn must be a positive safe integer'],
  ['turn/end', { turn: 1, reason: { kind: 'error', error: { message: 'x' } } }, 'event "turn/end": data.reason.error.code is required'],
  ['request/header', mut(requestHeaderData, (d) => { delete (d.header as { config: Json }).config.model }),
    'event "request/header": data.header.config.model is required'],
  ['assistant/chunk', { turn: 1, step: 1, chunk: { type: 'text-delta', index: 0 } }, 'event "assistant/chunk": data.chunk.text is required'],
]

describe('event type names and classes (01 §2.1–§2.2)', () => {
  it('S-012 (unit) accepts slash-separated lowercase names only', () => {
    for (const ok of ['turn/start', 'plugin/x', 'a/b/c', '0a/b_c-d', 'x-y/z']) expect(isValidEventTypeName(ok)).toBe(true)
    for (const bad of ['noslash', 'Turn/Start', '/x', 'x/', 'a//b', '-a/b', 'a/_b', 'a b/c', '', 'text-chunks', 5, null, undefined]) {
      expect([bad, isValidEventTypeName(bad)]).toEqual([bad, false])
    }
  })

  it('lists the 14 core types in §2.1 order and recognises the four surface types', () => {
    expect(CORE_SESSION_EVENT_TYPES).toEqual([
      'turn/start', 'turn/end', 'step/start', 'step/end', 'system/message', 'user/message', 'assistant/chunk',
      'assistant/message', 'tool/call', 'tool/result', 'todo/write', 'request/header', 'request/context', 'session/end-seed',
    ])
    expect(Object.isFrozen(CORE_SESSION_EVENT_TYPES)).toBe(true)
    expect(CORE_SESSION_EVENT_TYPES.filter(isSurfaceType)).toEqual(['system/message', 'user/message', 'assistant/message', 'tool/result'])
    expect(isSurfaceType('plugin/x')).toBe(false)
  })
})

describe('payload validator (01 §2.3)', () => {
  it('accepts a valid payload of every core type and any JSON on plugin types', () => {
    for (const [type, data] of VALID) expect([type, payloadProblem(type, data)]).toEqual([type, undefined])
  })

  it('S-019–S-032 (unit) reject each payload with its exact message', () => {
    for (const [type, data, message] of REJECTED) expect(payloadProblem(type, data)).toBe(message)
  })

  it('uses every phrase of §2.3 with paths from data', () => {
    const cases: [string, unknown, string][] = [
      ['turn/start', [], 'data must be an object'],
      ['turn/start', {}, 'data.turn is required'],
      ['turn/end', { turn: 1, reason: 'done' }, 'data.reason must be an object'],
      ['turn/end', { turn: 1, reason: { kind: '' } }, 'data.reason.kind must be a non-empty string'],
      ['turn/end', { turn: 1, reason: { kind: 'completed', why: 1 } }, 'data.reason.why is not allowed'],
      ['turn/end', { turn: 1, reason: { kind: 'aborted', reason: { kind: 'x' } } },
        'data.reason.reason.kind must be one of "user", "parent", "disposed"'],
      ['turn/end', { turn: 1, reason: { kind: 'aborted', reason: { kind: 'user', at: 1 } } }, 'data.reason.reason.at is not allowed'],
      ['turn/end', { turn: 1, reason: { kind: 'error', error: { message: 'm', code: 'c', status: 1.5 } } },
        'data.reason.error.status must be a non-negative safe integer'],
      ['step/start', { turn: 1, step: 2 ** 53 }, 'data.step must be a positive safe integer'],
      ['user/message', mut(userMessage, (d) => { d.id = '' }), 'data.id must be a non-empty string'],
      ['user/message', mut(userMessage, (d) => { d.role = 'assistant' }), 'data.role must be one of "user"'],
      ['user/message', mut(userMessage, (d) => { d.content = 'x' }), 'data.content must be a non-empty array'],
      ['user/message', mut(userMessage, (d) => { d.content = [1] }), 'data.content[0] must be an object'],
      ['user/message', mut(userMessage, (d) => { d.content = [{ text: 'x' }] }), 'data.content[0].type is required'],
      ['user/message', mut(userMessage, (d) => { d.content = [{ type: 'text', text: 1 }] }), 'data.content[0].text must be a string'],
      ['user/message', mut(userMessage, (d) => { d.content = [{ type: 'text', text: 'x', y: 1 }] }), 'data.content[0].y is not allowed'],
      ['user/message', mut(userMessage, (d) => { (d.content as { image: Json }[])[1]!.image.mediaType = 'image/bmp' }),
        'data.content[1].image.mediaType must be one of "image/png", "image/jpeg", "image/gif", "image/webp"'],
      ['user/message', mut(userMessage, (d) => { (d.content as { image: Json }[])[1]!.image.width = 0 }),
        'data.content[1].image.width must be a positive safe integer'],
      ['user/message', mut(userMessage, (d) => { (d.content as { image: Json }[])[1]!.image.bytes = -1 }),
        'data.content[1].image.bytes must be a non-negative safe integer'],
      ['user/message', mut(userMessage, (d) => { (d.content as { image: Json }[])[1]!.image.uri = '' }),
        'data.content[1].image.uri must be a non-empty string'],
      ['user/message', mut(userMessage, (d) => { d.source = { kind: 'user', extra: 1 } }), 'data.source.extra is not allowed'],
      ['user/message', mut(userMessage, (d) => { d.source = { kind: 'plugin', plugin: 'p', extra: 1 } }), 'data.source.extra is not allowed'],
      ['user/message', mut(userMessage, (d) => { d.source = { kind: 'tool' } }), 'data.source.kind must not be "tool"'],
      ['user/message', mut(userMessage, (d) => { d.source = { kind: 'system' } }), 'data.source.kind must not be "system"'],
      ['user/message', mut(userMessage, (d) => { d.source = {} }), 'data.source.kind is required'],
      ['system/message', mut(systemMessage, (d) => { d.source = { kind: 'user' } }), 'data.source.kind must be one of "system", "plugin"'],
      ['system/message', mut(systemMessage, (d) => { d.source = { kind: 'plugin', plugin: '' } }), 'data.source.plugin must be a non-empty string'],
      ['assistant/message', mut(assistantData, (d) => { d.interrupted = false }), 'data.interrupted must be true'],
      ['assistant/message', mut(assistantData, (d) => { (d.usage as Json).inputTokens = -1 }), 'data.usage.inputTokens must be a non-negative safe integer'],
      ['assistant/message', mut(assistantData, (d) => { delete (d.usage as Json).outputTokens }), 'data.usage.outputTokens is required'],
      ['assistant/message', mut(assistantData, (d) => { (d.message as Json).content = [image] }),
        'data.message.content[0].type must be one of "text", "reasoning", "refusal", "tool-call"'],
      ['assistant/message', mut(assistantData, (d) => { (d.message as { content: Json[] }).content[2]!.id = '' }),
        'data.message.content[2].id must be a non-empty string'],
      ['assistant/message', mut(assistantData, (d) => { (d.message as { source: Json }).source.kind = 'tool' }),
        'data.message.source.kind must be one of "model"'],
      ['tool/result', mut(toolResultData, (d) => { (d.message as { content: Json[] }).content[0]!.isError = 'no' }),
        'data.message.content[0].isError must be a boolean'],
      ['tool/result', mut(toolResultData, (d) => { (d.message as Json).content = [text] }),
        'data.message.content must hold exactly one tool-result block'],
      ['tool/result', mut(toolResultData, (d) => { (d.message as Json).content = {} }), 'data.message.content must be an array'],
      ['tool/result', mut(toolResultData, (d) => { (d.message as { content: Json[] }).content[0]!.content = [{ type: 'reasoning', text: '' }] }),
        'data.message.content[0].content[0].type must be one of "text", "image"'],
      ['tool/result', mut(toolResultData, (d) => { d.error = { name: 'E' } }), 'data.error.code is required'],
      ['tool/call', { turn: 1, step: 1, callId: '', name: 'n', arguments: '' }, 'data.callId must be a non-empty string'],
      ['tool/call', { turn: 1, step: 1, callId: 'c', name: 'n', arguments: {} }, 'data.arguments must be a string'],
      ['assistant/chunk', { turn: 1, step: 1, chunk: {} }, 'data.chunk.type is required'],
      ['assistant/chunk', { turn: 1, step: 1, chunk: { type: 'text-delta', index: -1, text: '' } }, 'data.chunk.index must be a non-negative safe integer'],
      ['assistant/chunk', { turn: 1, step: 1, chunk: { type: 'block-end', index: 0, block: { type: 'text', text: 'x', extra: 1 } } },
        'data.chunk.block.extra is not allowed'],
      ['assistant/chunk', { turn: 1, step: 1, chunk: { type: 'usage', usage: { inputTokens: 0 } } }, 'data.chunk.usage.outputTokens is required'],
      ['assistant/chunk', { turn: 1, step: 1, chunk: { type: 'finish', reason: 'done' } },
        'data.chunk.reason must be one of "stop", "tool-calls", "max-tokens", "error", "aborted"'],
      ['assistant/chunk', { turn: 1, step: 1, chunk: { type: 'finish', reason: 'error', error: { message: 'm', code: '' } } },
        'data.chunk.error.code must be a non-empty string'],
      ['assistant/chunk', { turn: 1, step: 1, chunk: { type: 'tool-call-delta', index: 0, id: 'c', argumentsDelta: 1 } },
        'data.chunk.argumentsDelta must be a string'],
      ['todo/write', { todos: {} }, 'data.todos must be an array'],
      ['todo/write', { todos: [{ content: 'a', status: 'done' }] }, 'data.todos[0].status must be one of "pending", "in_progress", "completed"'],
      ['request/header', mut(requestHeaderData, (d) => { (d.header as { config: Json }).config.temperature = '1' }),
        'data.header.config.temperature must be a finite number'],
      ['request/header', mut(requestHeaderData, (d) => { (d.header as { config: Json }).config.reasoningEffort = '' }),
        'data.header.config.reasoningEffort must be a non-empty string'],
      ['request/header', mut(requestHeaderData, (d) => { (d.header as { tools: Json[] }).tools[0]!.parameters = [] }),
        'data.header.tools[0].parameters must be an object'],
      ['request/header', mut(requestHeaderData, (d) => { d.reason = 'boot' }), 'data.reason must be one of "initial", "resume", "change"'],
      ['request/header', mut(requestHeaderData, (d) => { (d.header as Json).extra = 1 }), 'data.header.extra is not allowed'],
      ['request/context', { provider: 'p', model: 'm', contextWindow: 0 }, 'data.contextWindow must be a positive safe integer'],
      ['session/end-seed', { inherited: false }, 'data.inherited must be true'],
      ['session/end-seed', { other: true }, 'data.other is not allowed'],
    ]
    for (const [type, data, message] of cases) expect(payloadProblem(type, data)).toBe(`event "${type}": ${message}`)
  })

  it('checks fields in declaration order, each completely, then unknown keys in own-key order', () => {
    const both = mut(userMessage, (d) => { delete d.id; d.extra = 1 })
    expect(payloadProblem('user/message', both)).toBe('event "user/message": data.id is required')
    const late = { zeta: 1, ...mut(userMessage, (d) => { d.content = [] }) }
    expect(payloadProblem('user/message', late)).toBe('event "user/message": data.content must be a non-empty array')
    const twoUnknown = { b: 1, ...userMessage, a: 2 }
    expect(payloadProblem('user/message', twoUnknown)).toBe('event "user/message": data.b is not allowed')
    const nestedFirst = mut(userMessage, (d) => { d.content = [{ type: 'text' }]; d.source = {} })
    expect(payloadProblem('user/message', nestedFirst)).toBe('event "user/message": data.content[0].text is required')
  })

  it('runs a must-equal check once both fields passed, before unknown keys', () => {
    const mismatchAndExtra = mut(toolResultData, (d) => {
      const m = d.message as { source: Json } & Json
      m.source.callId = 'other'
      m.extra = 1
    })
    expect(payloadProblem('tool/result', mismatchAndExtra)).toBe(
      'event "tool/result": data.message.content[0].toolCallId must equal data.message.source.callId')
    const badSource = mut(toolResultData, (d) => { (d.message as { source: Json }).source.callId = '' })
    expect(payloadProblem('tool/result', badSource)).toBe('event "tool/result": data.message.source.callId must be a non-empty string')
    const badBlockId = mut(toolResultData, (d) => { (d.message as { content: Json[] }).content[0]!.toolCallId = 1 })
    expect(payloadProblem('tool/result', badBlockId)).toBe(
      'event "tool/result": data.message.content[0].toolCallId must be a non-empty string')
  })
})

describe('envelope (01 §5.2 step 2)', () => {
  const ok = { type: 'plugin/x', seq: 0, time: 0, data: {} }
  it('gives each detail in order', () => {
    expect(envelopeProblem(ok)).toBeUndefined()
    expect(envelopeProblem({ ...ok, ignorable: true, surfaceOp: 'append', sourceEventSeqs: [] })).toBeUndefined()
    const cases: [unknown, string][] = [
      [null, 'event must be an object'],
      [[ok], 'event must be an object'],
      ['x', 'event must be an object'],
      [{ ...ok, foo: 1, bar: 2 }, 'unknown key "foo"'],
      [{ foo: 1, seq: 'x' }, 'unknown key "foo"'],
      [{ ...ok, type: 1 }, 'type must be a string'],
      [{ seq: 0, time: 0, data: {} }, 'type must be a string'],
      [{ ...ok, seq: '0' }, 'seq must be a non-negative safe integer'],
      [{ ...ok, seq: -1 }, 'seq must be a non-negative safe integer'],
      [{ ...ok, time: -1 }, 'time must be a non-negative safe integer'],
      [{ ...ok, time: 0.5 }, 'time must be a non-negative safe integer'],
      [{ type: 'plugin/x', seq: 0, time: 0 }, 'data is required'],
      [{ ...ok, ignorable: false }, 'ignorable must be true when present'],
    ]
    for (const [value, detail] of cases) expect(envelopeProblem(value)).toBe(detail)
  })

  it('looks only at own enumerable keys: inherited and non-enumerable keys are not unknown keys', () => {
    const inherited = Object.assign(Object.create({ foo: 1 }) as object, ok)
    expect(envelopeProblem(inherited)).toBeUndefined()
    expect(envelopeProblem(Object.defineProperty({ ...ok }, 'hidden', { value: 1, enumerable: false }))).toBeUndefined()
    expect(envelopeProblem(Object.assign(Object.create({ foo: 1 }) as object, ok, { bar: 2 }))).toBe('unknown key "bar"')
  })

  it('contentProblem gives the step-4 messages: type name, surface ignorable, payload', () => {
    expect(contentProblem({ type: 'noslash', data: {} })).toBe('event type "noslash" is invalid')
    expect(contentProblem({ type: 'user/message', data: userMessage, ignorable: true })).toBe(
      'event "user/message": surface events cannot be ignorable')
    expect(contentProblem({ type: 'turn/start', data: { turn: 0 } })).toBe('event "turn/start": data.turn must be a positive safe integer')
    expect(contentProblem({ type: 'plugin/x', data: 1, ignorable: true })).toBeUndefined()
  })
})

describe('event-local surface checks V1–V10 (01 §4.2)', () => {
  const both = { op: true, sources: true }
  const opOnly = { op: true, sources: false }
  it('S-049–S-052 (unit) give V1–V10 messages exactly, in order', () => {
    const cases: [string, number, unknown, unknown, { op: boolean; sources: boolean }, string | undefined][] = [
      ['turn/start', 4, 'append', undefined, opOnly, 'event "turn/start" is not a surface type and cannot carry surfaceOp'],
      ['plugin/x', 4, 'append', [1], both, 'event "plugin/x" is not a surface type and cannot carry surfaceOp'],
      ['turn/start', 4, undefined, [0], { op: false, sources: true }, 'event "turn/start" is not a surface type and cannot carry sourceEventSeqs'],
      ['turn/start', 4, undefined, undefined, { op: false, sources: false }, undefined],
      ['user/message', 4, undefined, undefined, { op: false, sources: false }, 'event "user/message" is a surface type and requires surfaceOp'],
      ['user/message', 4, undefined, [0], { op: false, sources: true }, 'event "user/message" is a surface type and requires surfaceOp'],
      ['user/message', 4, 'bogus', undefined, opOnly, 'event "user/message": invalid surfaceOp'],
      ['user/message', 4, ['append'], undefined, opOnly, 'event "user/message": invalid surfaceOp'],
      ['user/message', 4, null, undefined, opOnly, 'event "user/message": invalid surfaceOp'],
      ['user/message', 4, { op: 'replace', start: -1, end: 0 }, undefined, opOnly, 'event "user/message": invalid replace surfaceOp'],
      ['user/message', 4, { op: 'replace', start: 0, end: 0, x: 1 }, undefined, opOnly, 'event "user/message": invalid replace surfaceOp'],
      ['user/message', 4, { op: 'replace', start: 0 }, undefined, opOnly, 'event "user/message": invalid replace surfaceOp'],
      ['user/message', 4, { op: 'splice', start: 0, end: 0 }, undefined, opOnly, 'event "user/message": invalid replace surfaceOp'],
      ['user/message', 4, { op: 'replace', start: 0.5, end: 1 }, undefined, opOnly, 'event "user/message": invalid replace surfaceOp'],
      ['user/message', 4, { op: 'replace', start: 1, end: 0 }, [0, 1], both, undefined],
      ['user/message', 4, 'append', '0', both, 'sourceEventSeqs must be an array'],
      ['user/message', 4, 'append', [], both, 'sourceEventSeqs must not be empty except on assistant/message'],
      ['assistant/message', 4, 'append', [], both, undefined],
      ['user/message', 4, 'append', [0.5], both, 'sourceEventSeqs must contain only non-negative safe integers'],
      ['user/message', 4, 'append', [9, -1], both, 'sourceEventSeqs must contain only non-negative safe integers'],
      ['user/message', 4, 'append', [9, 1, 1, '2'], both, 'sourceEventSeqs must contain only non-negative safe integers'],
      ['user/message', 4, 'append', [0, 0], both, 'sourceEventSeqs contains duplicate 0'],
      ['user/message', 4, 'append', [3, 2, 1, 2, 3], both, 'sourceEventSeqs contains duplicate 2'],
      ['user/message', 4, 'append', [9, 9], both, 'sourceEventSeqs contains duplicate 9'],
      ['user/message', 4, 'append', [4], both, 'sourceEventSeqs must reference earlier events: 4 >= 4'],
      ['user/message', 4, 'append', [0, 7, 5], both, 'sourceEventSeqs must reference earlier events: 7 >= 4'],
      ['user/message', 4, 'append', [3, 0, 1], both, undefined],
    ]
    for (const [type, seq, op, sources, present, message] of cases) {
      expect([type, op, sources, surfaceMetaProblem(type, seq, op, sources, present)]).toEqual([type, op, sources, message])
    }
  })
})

describe('assertSessionEvent (01 §1.8)', () => {
  const envelope = (type: string, data: unknown, extra: Json = {}): Json => ({ type, seq: 5, time: 1, data, ...extra })
  const surface = (type: string): Json => (isSurfaceType(type) ? { surfaceOp: 'append' } : {})

  function thrown(value: unknown): SessionError {
    try {
      assertSessionEvent(value)
    } catch (error) {
      expect(error).toBeInstanceOf(SessionError)
      return error as SessionError
    }
    throw new Error('assertSessionEvent accepted the value')
  }

  it('S-034 accepts a stored event of every core type, plugin types, markers and ignorable plugin events', () => {
    for (const [type, data] of VALID) expect(() => assertSessionEvent(envelope(type, data, surface(type)))).not.toThrow()
    expect(() => assertSessionEvent(envelope('plugin/x', 1, { ignorable: true }))).not.toThrow()
    expect(() => assertSessionEvent(envelope('assistant/message', assistantData, { surfaceOp: { op: 'replace', start: 1, end: 2 }, sourceEventSeqs: [] })))
      .not.toThrow()
  })

  it('S-034 rejects the payloads of S-019–S-032 with INVALID_EVENT and the live messages', () => {
    for (const [type, data, message] of REJECTED) {
      const error = thrown(envelope(type, data, surface(type)))
      expect([error.code, error.message, error.index]).toEqual(['INVALID_EVENT', message, undefined])
    }
  })

  it('runs lossless, envelope, content and V1–V10 in order with the seed messages minus the prefix', () => {
    const cases: [unknown, string, string][] = [
      [envelope('plugin/x', { a: 1n }), 'NOT_JSON', 'is not lossless JSON'],
      [{ ...envelope('plugin/x', {}), when: new Date(0) }, 'NOT_JSON', 'is not lossless JSON'],
      [envelope('plugin/x', { a: 1 }, { foo: 1 }), 'INVALID_EVENT', 'invalid envelope: unknown key "foo"'],
      [{ type: 'plugin/x', seq: 0, time: 0 }, 'INVALID_EVENT', 'invalid envelope: data is required'],
      [envelope('noslash', {}), 'INVALID_EVENT', 'event type "noslash" is invalid'],
      [envelope('user/message', userMessage, { ignorable: true, surfaceOp: 'bogus' }), 'INVALID_EVENT',
        'event "user/message": surface events cannot be ignorable'],
      [envelope('user/message', {}, { surfaceOp: 'bogus' }), 'INVALID_EVENT', 'event "user/message": data.id is required'],
      [envelope('turn/start', { turn: 1 }, { surfaceOp: 'append' }), 'INVALID_SURFACE',
        'event "turn/start" is not a surface type and cannot carry surfaceOp'],
      [envelope('user/message', userMessage), 'INVALID_SURFACE', 'event "user/message" is a surface type and requires surfaceOp'],
      [envelope('user/message', userMessage, { surfaceOp: 'append', sourceEventSeqs: [5] }), 'INVALID_SURFACE',
        'sourceEventSeqs must reference earlier events: 5 >= 5'],
    ]
    for (const [value, code, message] of cases) {
      const error = thrown(value)
      expect([error.code, error.message]).toEqual([code, message])
    }
  })
})
