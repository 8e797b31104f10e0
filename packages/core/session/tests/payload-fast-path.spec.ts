import { describe, expect, it } from 'vitest'
import { isPlainPayload } from '../src/payload-fast-path.ts'
import { payloadProblem, tablePayloadProblem } from '../src/payload.ts'
import { assistantMsg, resultMsg, userMsg } from './harness.ts'

type Json = null | boolean | number | string | Json[] | { [key: string]: Json }

const stepOf = { turn: 2, step: 3 }
const usage = { inputTokens: 10, outputTokens: 4, cacheReadTokens: 1, cacheWriteTokens: 0, reasoningTokens: 2 }

/** Valid payloads of every fast-pathed type, each in a shape its fast path takes. */
const plain: [string, Json][] = [
  ['assistant/chunk', { ...stepOf, chunk: { type: 'text-delta', index: 0, text: 'to' } }],
  ['assistant/chunk', { ...stepOf, chunk: { type: 'tool-call-delta', index: 1, id: 'c', name: 'read', argumentsDelta: '{' } }],
  ['turn/start', { turn: 1 }],
  ['turn/end', { turn: 1, reason: { kind: 'completed' } }],
  ['step/start', stepOf],
  ['step/end', stepOf],
  ['tool/call', { ...stepOf, callId: 'c', name: 'read', arguments: '{}' }],
  ['user/message', userMsg('u1', 'hello') as unknown as Json],
  ['user/message', { ...userMsg('u2'), content: [{ type: 'text', text: 'a' }, { type: 'text', text: '' }] } as unknown as Json],
  ['assistant/message', { ...stepOf, message: assistantMsg('a1', 'ok', ['c1', 'c2']), usage } as unknown as Json],
  ['assistant/message', {
    ...stepOf,
    message: { ...assistantMsg('a2', ''), content: [{ type: 'reasoning', text: 'r' }, { type: 'refusal', text: 'no' }],
      source: { kind: 'model', provider: 'p', model: 'm', replayState: { any: ['json'] } } },
    interrupted: true, usageMissing: true, rawFinishReason: 'length',
  } as unknown as Json],
  ['tool/result', { ...stepOf, message: resultMsg('r1', 'c1', 'out') } as unknown as Json],
  ['tool/result', {
    ...stepOf,
    message: { ...resultMsg('r2', 'c2'), content: [{ type: 'tool-result', toolCallId: 'c2', content: [], isError: true }] },
    error: { name: 'ToolError', code: 'E_TOOL' }, meta: { took: 3 },
  } as unknown as Json],
]

/** Values a mutation puts in place of a valid one: every kind a checker tells apart. */
const REPLACEMENTS: Json[] = [
  null, true, false, 0, -1, 1.5, 2 ** 53, 1, '', 'x', 'text', 'user', 'assistant', 'model', 'tool', 'tool-result',
  'completed', 'c1', [], [{ type: 'text', text: 'x' }], {}, { kind: 'user' },
]

/** Optional keys with valid values of their own, added wherever they are absent (they are valid only in some places). */
const ADDITIONS: Record<string, Json> = {
  usage, usageMissing: true, interrupted: true, rawFinishReason: 'stop', replayState: { s: 1 }, isError: false,
  error: { name: 'E', code: 'E' }, meta: 1, name: 'n', cacheReadTokens: 1, reasoningTokens: 0,
}

/** Every container of `value` with the path that reaches it (the root first). */
function containers(value: Json, path: (string | number)[] = []): { path: (string | number)[]; node: Json[] | Record<string, Json> }[] {
  if (typeof value !== 'object' || value === null) return []
  const out: { path: (string | number)[]; node: Json[] | Record<string, Json> }[] = [{ path, node: value }]
  const entries: [string | number, Json][] = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value)
  for (const [key, child] of entries) out.push(...containers(child, [...path, key]))
  return out
}

/** A deep copy of `value` with `edit` applied to the container at `path`. */
function mutated(value: Json, path: (string | number)[], edit: (node: Json[] | Record<string, Json>) => void): Json {
  const copy = structuredClone(value)
  let node = copy as unknown as Record<string | number, Json>
  for (const key of path) node = node[key] as unknown as Record<string | number, Json>
  edit(node as unknown as Json[] | Record<string, Json>)
  return copy
}

/**
 * Per container: each slot removed, each slot replaced by every replacement, an extra key (or slot) added, and each
 * optional key of `ADDITIONS` added where absent.
 */
function mutations(value: Json): Json[] {
  const out: Json[] = []
  for (const { path, node } of containers(value)) {
    const keys: (string | number)[] = Array.isArray(node) ? node.map((_, i) => i) : Object.keys(node)
    for (const key of keys) {
      out.push(mutated(value, path, n => {
        if (Array.isArray(n)) n.splice(key as number, 1)
        else delete n[key as string]
      }))
      for (const replacement of REPLACEMENTS) {
        out.push(mutated(value, path, n => { (n as Record<string | number, Json>)[key] = structuredClone(replacement) }))
      }
    }
    out.push(mutated(value, path, n => {
      if (Array.isArray(n)) n.push(structuredClone(n[0] ?? 'x'))
      else n['extra'] = 1
    }))
    if (Array.isArray(node)) continue
    for (const [key, addition] of Object.entries(ADDITIONS)) {
      if (!(key in node)) out.push(mutated(value, path, n => { (n as Record<string, Json>)[key] = structuredClone(addition) }))
    }
  }
  return out
}

describe('the payload fast paths agree with the table', () => {
  it('S-146 takes every plain payload of a turn by direct reads, and the table accepts each', () => {
    for (const [type, data] of plain) {
      expect(tablePayloadProblem(type, data), `${type} ${JSON.stringify(data)}`).toBeUndefined()
      expect(isPlainPayload(type, data), `${type} ${JSON.stringify(data)}`).toBe(true)
    }
  })

  it('S-146 gives the table\'s verdict and message for every mutation of a plain payload', () => {
    let checked = 0
    let refused = 0
    for (const [type, data] of plain) {
      for (const candidate of mutations(data)) {
        const table = tablePayloadProblem(type, candidate)
        expect(payloadProblem(type, candidate), `${type} ${JSON.stringify(candidate)}`).toBe(table)
        // A fast path never accepts what the table refuses.
        if (table !== undefined) expect(isPlainPayload(type, candidate), `${type} ${JSON.stringify(candidate)}`).toBe(false)
        checked++
        if (table !== undefined) refused++
      }
    }
    // The mutations reach far: thousands of candidates, most of them refused.
    expect(checked).toBeGreaterThan(3000)
    expect(refused).toBeGreaterThan(checked / 2)
  })

  it('S-146 defers to the table when Object.prototype carries an enumerable key', () => {
    Object.defineProperty(Object.prototype, 'usage', { value: usage, enumerable: true, configurable: true, writable: true })
    try {
      for (const [type, data] of plain) {
        expect(payloadProblem(type, data), `${type} ${JSON.stringify(data)}`).toBe(tablePayloadProblem(type, data))
      }
    } finally {
      delete (Object.prototype as { usage?: unknown }).usage
    }
  })
})
