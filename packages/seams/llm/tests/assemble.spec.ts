import type { CallId, MessageId, StreamChunk } from '@logbook/session'
import { describe, expect, it } from 'vitest'
import { assembleMessage, hasVisibleText } from '../src/index.ts'

const source = { kind: 'model', provider: 'p', model: 'm' } as const
const call = { type: 'tool-call', id: 'c1' as CallId, name: 'read', arguments: '{}' } as const

describe('assembleMessage', () => {
  it('builds a complete reply from block-end blocks in index order, however the blocks interleaved', () => {
    const chunks: StreamChunk[] = [
      { type: 'block-start', index: 0, blockType: 'reasoning' },
      { type: 'block-start', index: 1, blockType: 'text' },
      { type: 'text-delta', index: 1, text: 'Hi' },
      { type: 'reasoning-delta', index: 0, text: 'think' },
      { type: 'block-start', index: 2, blockType: 'tool-call' },
      { type: 'tool-call-delta', index: 2, id: 'c1' as CallId, name: 'read', argumentsDelta: '{}' },
      { type: 'block-end', index: 2, block: call },
      { type: 'block-end', index: 1, block: { type: 'text', text: 'Hi' } },
      { type: 'block-end', index: 0, block: { type: 'reasoning', text: 'think' } },
      { type: 'usage', usage: { inputTokens: 1, outputTokens: 2 } },
      { type: 'finish', reason: 'tool-calls' },
    ]
    expect(assembleMessage(chunks, source)).toEqual({
      role: 'assistant',
      content: [{ type: 'reasoning', text: 'think' }, { type: 'text', text: 'Hi' }, call],
      source,
    })
    expect(assembleMessage(chunks, source, 'assistant-9' as MessageId)).toEqual({
      id: 'assistant-9',
      role: 'assistant',
      content: [{ type: 'reasoning', text: 'think' }, { type: 'text', text: 'Hi' }, call],
      source,
    })
  })

  it('keeps only the visible text and reasoning of an interrupted stream, without tool calls', () => {
    const chunks: StreamChunk[] = [
      { type: 'block-start', index: 0, blockType: 'reasoning' },
      { type: 'reasoning-delta', index: 0, text: 'hm' },
      { type: 'block-end', index: 0, block: { type: 'reasoning', text: 'hm' } },
      { type: 'block-start', index: 1, blockType: 'text' },
      { type: 'text-delta', index: 1, text: 'He' },
      { type: 'text-delta', index: 1, text: 'l' },
      { type: 'block-start', index: 2, blockType: 'tool-call' },
      { type: 'tool-call-delta', index: 2, id: 'c1' as CallId, name: 'read', argumentsDelta: '{' },
      { type: 'finish', reason: 'aborted', error: { code: 'ABORTED', message: 'request aborted' } },
    ]
    expect(assembleMessage(chunks, source).content).toEqual([{ type: 'reasoning', text: 'hm' }, { type: 'text', text: 'Hel' }])
    expect(hasVisibleText(chunks)).toBe(true)
    const none: StreamChunk[] = [{ type: 'block-start', index: 0, blockType: 'text' }, { type: 'finish', reason: 'aborted' }]
    expect(assembleMessage(none, source).content).toEqual([])
    expect(hasVisibleText(none)).toBe(false)
  })

  it('L-142 a refusal is a part like text: from its block-end when complete, from its deltas when cut off', () => {
    const refusal = { type: 'refusal', text: 'I cannot help with that.' } as const
    const complete: StreamChunk[] = [
      { type: 'block-start', index: 0, blockType: 'refusal' },
      { type: 'refusal-delta', index: 0, text: 'I cannot ' },
      { type: 'refusal-delta', index: 0, text: 'help with that.' },
      { type: 'block-end', index: 0, block: refusal },
      { type: 'finish', reason: 'stop', rawFinishReason: 'stop' },
    ]
    expect(assembleMessage(complete, source).content).toEqual([refusal])
    const cut: StreamChunk[] = [...complete.slice(0, 2), { type: 'finish', reason: 'aborted' }]
    expect(assembleMessage(cut, source).content).toEqual([{ type: 'refusal', text: 'I cannot ' }])
    expect(hasVisibleText(cut)).toBe(true)
    expect(hasVisibleText([{ type: 'refusal-delta', index: 0, text: '' }])).toBe(false)
  })
})
