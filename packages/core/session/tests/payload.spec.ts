import { describe, expect, it } from 'vitest'
import { assertSessionEvent, isSurfaceType, Session, type SessionEvent } from '../src/index.ts'
import { appendAs, assistantMsg, ev, expectError, resultMsg, sid, userMsg } from './harness.ts'

interface Case { id: string; type: string; data: unknown; message?: string }

const user = userMsg('u1')
const image = { type: 'image', image: { uri: 'file:///a.png', mediaType: 'image/png' } }
const stepOf = { turn: 1, step: 1 }

/** Rejected payloads: the message is the full §2.3 text. */
const rejected: Case[] = [
  { id: 'S-019', type: 'user/message', data: { role: 'user', content: user.content, source: user.source },
    message: 'event "user/message": data.id is required' },
  { id: 'S-020', type: 'user/message', data: { ...user, content: [] },
    message: 'event "user/message": data.content must be a non-empty array' },
  { id: 'S-021', type: 'user/message', data: { ...user, content: resultMsg('r', 'c').content },
    message: 'event "user/message": data.content[0].type must be one of "text", "image"' },
  { id: 'S-022', type: 'user/message', data: { ...user, meta: 1 }, message: 'event "user/message": data.meta is not allowed' },
  { id: 'S-023', type: 'user/message', data: { ...user, source: { kind: 'model' } },
    message: 'event "user/message": data.source.kind must not be "model"' },
  { id: 'S-024', type: 'user/message', data: { ...user, source: { kind: 'plugin' } },
    message: 'event "user/message": data.source.plugin is required' },
  { id: 'S-025', type: 'assistant/message',
    data: { ...stepOf, message: { ...assistantMsg('a'), source: { kind: 'model', model: 'm' } } },
    message: 'event "assistant/message": data.message.source.provider is required' },
  { id: 'S-026', type: 'tool/result',
    data: { ...stepOf, message: { ...resultMsg('r', 'c'), content: [...resultMsg('r', 'c').content, ...resultMsg('r', 'c').content] } },
    message: 'event "tool/result": data.message.content must hold exactly one tool-result block' },
  { id: 'S-027', type: 'tool/result',
    data: { ...stepOf, message: { ...resultMsg('r', 'c'), source: { kind: 'tool', callId: 'other' } } },
    message: 'event "tool/result": data.message.content[0].toolCallId must equal data.message.source.callId' },
  { id: 'S-028', type: 'system/message',
    data: { id: 's', role: 'system', content: [image], source: { kind: 'system' } },
    message: 'event "system/message": data.content[0].type must be one of "text"' },
  { id: 'S-028', type: 'user/message',
    data: { ...user, content: [{ type: 'image', image: { uri: 'file:///a.png', mediaType: 'image/png', sha256: 'ABC' } }] },
    message: 'event "user/message": data.content[0].image.sha256 must be 64 lowercase hex digits' },
  { id: 'S-029', type: 'turn/start', data: { turn: 0 }, message: 'event "turn/start": data.turn must be a positive safe integer' },
  { id: 'S-030', type: 'turn/end', data: { turn: 1, reason: { kind: 'error', error: { message: 'x' } } },
    message: 'event "turn/end": data.reason.error.code is required' },
  { id: 'S-031', type: 'request/header', data: { header: { config: { provider: 'p' } }, reason: 'initial' },
    message: 'event "request/header": data.header.config.model is required' },
  { id: 'S-032', type: 'assistant/chunk', data: { ...stepOf, chunk: { type: 'text-delta', index: 0 } },
    message: 'event "assistant/chunk": data.chunk.text is required' },
]

/** Accepted payloads named by the same items. */
const accepted: Case[] = [
  { id: 'S-023', type: 'user/message', data: { ...user, source: { kind: 'cron', job: 'x' } } },
  { id: 'S-025', type: 'assistant/message', data: { ...stepOf, message: assistantMsg('a', '') } },
  { id: 'S-030', type: 'turn/end', data: { turn: 1, reason: { kind: 'custom' } } },
  { id: 'S-031', type: 'request/header',
    data: { header: { config: { provider: 'p', model: 'm', topP: 0.5 } }, reason: 'initial' } },
  { id: 'S-032', type: 'assistant/chunk', data: { ...stepOf, chunk: { type: 'future' } } },
]

const opFor = (type: string): Record<string, unknown> => (isSurfaceType(type) ? { surfaceOp: 'append' } : {})

function appendCase(s: Session, c: Case): SessionEvent {
  return appendAs(s, c.type, c.data, opFor(c.type))
}

describe('payload validator through real appends (D3)', () => {
  for (const c of rejected) {
    it(`${c.id} append rejects ${c.type} with "${c.message}"`, () => {
      const s = Session.create(sid('p'))
      expectError(() => appendCase(s, c), 'INVALID_EVENT', c.message!)
      expect(s.seq).toBe(0)
    })
  }
  for (const c of accepted) {
    it(`${c.id} append accepts the ${c.type} variant`, () => {
      const s = Session.create(sid('p'))
      expect(appendCase(s, c).data).toEqual(c.data)
    })
  }
})

describe('the same validator inside seeds and assertSessionEvent', () => {
  it('S-033 every rejected payload is rejected inside a seed behind the seed prefix, with its index', () => {
    for (const c of rejected) {
      const seed = [ev('plugin/x', 0, {}), ev(c.type, 1, c.data, opFor(c.type))]
      const error = expectError(() => Session.create(sid('p'), { seed }), 'INVALID_EVENT', `seed event at index 1: ${c.message}`)
      expect(error.index).toBe(1)
    }
  })

  it('S-033 every accepted payload is accepted inside a seed', () => {
    const seed = accepted.map((c, i) => ev(c.type, i, c.data, opFor(c.type)))
    expect(Session.create(sid('p'), { seed }).events).toEqual(seed)
  })

  it('S-034 assertSessionEvent accepts every stored event and rejects the rejected payloads', () => {
    const s = Session.create(sid('p'))
    for (const c of accepted) appendCase(s, c)
    s.append('tool/result', { ...stepOf, message: resultMsg('r', 'c') }, { surfaceOp: 'append', sourceEventSeqs: [1] })
    appendAs(s, 'plugin/x', { any: [1, 'json'] }, { ignorable: true })
    for (const event of s.events) expect(() => assertSessionEvent(event)).not.toThrow()
    for (const c of rejected) {
      expectError(() => assertSessionEvent(ev(c.type, 0, c.data, opFor(c.type))), 'INVALID_EVENT', c.message!)
    }
  })
})

describe('the streaming-delta fast path agrees with the table', () => {
  const chunk = (c: Record<string, unknown>, extra: Record<string, unknown> = {}): unknown => ({ ...stepOf, chunk: c, ...extra })
  const text = { type: 'text-delta', index: 0, text: 'x' }
  const call = { type: 'tool-call-delta', index: 1, id: 'c', argumentsDelta: '{' }
  const prefix = 'event "assistant/chunk": '

  it('S-032 accepts the three delta kinds, with or without a tool name, and extra chunk keys (the chunk is open)', () => {
    const valid = [chunk(text), chunk({ ...text, type: 'reasoning-delta' }), chunk(call), chunk({ ...call, name: 'read' }),
      chunk({ ...text, extra: [1] })]
    const s = Session.create(sid('p'))
    for (const data of valid) expect(appendAs(s, 'assistant/chunk', data).data).toEqual(data)
  })

  it('S-032 rejects every near miss with the table message', () => {
    const cases: [unknown, string][] = [
      [chunk(text, { extra: 1 }), 'data.extra is not allowed'],
      [{ turn: 1, chunk: text }, 'data.step is required'],
      [chunk(text, { turn: 0 }), 'data.turn must be a positive safe integer'],
      [chunk(text, { step: 1.5 }), 'data.step must be a positive safe integer'],
      [{ ...stepOf, chunk: [text] }, 'data.chunk must be an object'],
      [chunk({ ...text, index: -1 }), 'data.chunk.index must be a non-negative safe integer'],
      [chunk({ type: 'text-delta', index: 0 }), 'data.chunk.text is required'],
      [chunk({ ...text, text: 5 }), 'data.chunk.text must be a string'],
      [chunk({ type: 'tool-call-delta', index: 1, argumentsDelta: '{' }), 'data.chunk.id is required'],
      [chunk({ ...call, name: 5 }), 'data.chunk.name must be a string'],
      [chunk({ type: 'tool-call-delta', index: 1, id: 'c' }), 'data.chunk.argumentsDelta is required'],
    ]
    for (const [data, message] of cases) {
      const s = Session.create(sid('p'))
      expectError(() => appendAs(s, 'assistant/chunk', data), 'INVALID_EVENT', `${prefix}${message}`)
    }
  })

  it('still accepts a valid delta when Object.prototype carries an enumerable key (the table decides)', () => {
    Object.defineProperty(Object.prototype, 'polluted', { value: 1, enumerable: true, configurable: true, writable: true })
    try {
      const s = Session.create(sid('p'))
      expect(appendAs(s, 'assistant/chunk', chunk(text)).seq).toBe(0)
      expect(appendAs(s, 'turn/start', { turn: 1 }).seq).toBe(1)
    } finally {
      delete (Object.prototype as { polluted?: unknown }).polluted
    }
  })
})

describe('the structural fast path agrees with the table', () => {
  const valid: [string, unknown][] = [
    ['turn/start', { turn: 1 }], ['step/start', stepOf], ['step/end', stepOf],
    ['turn/end', { turn: 1, reason: { kind: 'completed' } }], ['turn/end', { turn: 2, reason: { kind: 'forked' } }],
    ['tool/call', { ...stepOf, callId: 'c', name: 'read', arguments: '' }],
  ]

  it('S-029 accepts the plain payloads of turn/start, turn/end, step/start, step/end and tool/call', () => {
    const s = Session.create(sid('p'))
    for (const [type, data] of valid) expect(appendAs(s, type, data).data).toEqual(data)
  })

  it('S-029 rejects every near miss with the table message', () => {
    const cases: [string, unknown, string][] = [
      ['turn/start', { turn: 1, step: 1 }, 'data.step is not allowed'],
      ['turn/start', { turn: 1.5 }, 'data.turn must be a positive safe integer'],
      ['step/start', { turn: 1 }, 'data.step is required'],
      ['step/end', { ...stepOf, extra: true }, 'data.extra is not allowed'],
      ['step/end', { turn: 1, step: 2 ** 53 }, 'data.step must be a positive safe integer'],
      ['turn/end', { turn: 1, reason: { kind: 'completed', why: 'x' } }, 'data.reason.why is not allowed'],
      ['turn/end', { turn: 1, reason: { kind: '' } }, 'data.reason.kind must be a non-empty string'],
      ['turn/end', { turn: 1 }, 'data.reason is required'],
      ['tool/call', { ...stepOf, callId: '', name: 'read', arguments: '' }, 'data.callId must be a non-empty string'],
      ['tool/call', { ...stepOf, callId: 'c', name: 'read', arguments: {} }, 'data.arguments must be a string'],
      ['tool/call', { ...stepOf, callId: 'c', name: 'read' }, 'data.arguments is required'],
    ]
    for (const [type, data, message] of cases) {
      const s = Session.create(sid('p'))
      expectError(() => appendAs(s, type, data), 'INVALID_EVENT', `event "${type}": ${message}`)
    }
  })

  it('S-029 defers to the table when Object.prototype carries an enumerable key', () => {
    Object.defineProperty(Object.prototype, 'polluted', { value: 1, enumerable: true, configurable: true, writable: true })
    try {
      const s = Session.create(sid('p'))
      for (const [type, data] of valid) expect(appendAs(s, type, data).type).toBe(type)
    } finally {
      delete (Object.prototype as { polluted?: unknown }).polluted
    }
  })
})
