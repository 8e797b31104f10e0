import fc from 'fast-check'
import { CallId, MessageId, type ToolResultBlock } from '@logbook/session'
import { describe, expect, it } from 'vitest'
import { DEFAULTS } from '../src/config.ts'
import { pruneContent, pruneMarker } from '../src/prune.ts'
import { agent, boot, ofType, rejection } from './helpers.ts'

const block = (content: ToolResultBlock['content']): ToolResultBlock => ({ type: 'tool-result', toolCallId: CallId('c1'), content })
const points = (text: string): number => Array.from(text).length
const image = { type: 'image', image: { uri: 'file:///x.png', mediaType: 'image/png' } } as const

describe('pruneContent', () => {
  it('L-075 a 10,000-char result with the defaults → head 4096 + marker + tail 1024 code points, n = 4880; an emoji at a cut is not split', () => {
    const text = Array.from({ length: 10_000 }, (_, i) => String.fromCharCode(97 + (i % 26))).join('')
    const pruned = pruneContent(block([{ type: 'text', text }]), DEFAULTS.prune)!
    const marker = pruneMarker(4880)
    expect(marker).toBe('\n\n[… 4880 characters of tool output pruned …]\n\n')
    expect(pruned.content).toEqual([{ type: 'text', text: text.slice(0, 4096) + marker + text.slice(10_000 - 1024) }])
    expect(pruned.charsBefore).toBe(10_000)
    expect(pruned.charsAfter).toBe(4096 + points(marker) + 1024)
    expect(pruneContent(block([{ type: 'text', text: text.slice(0, 8192) }]), DEFAULTS.prune)).toBeNull()
    // Emoji (surrogate pairs) straddling both cut points: counted and cut as single code points.
    const emoji = '😀'.repeat(10_000)
    const cut = pruneContent(block([{ type: 'text', text: emoji }]), DEFAULTS.prune)!
    const [only] = cut.content as unknown as [{ text: string }]
    expect(only.text).toBe('😀'.repeat(4096) + marker + '😀'.repeat(1024))
    expect(cut.charsBefore).toBe(10_000)
  })

  it('L-076 text, image, text parts → the image stays in place, emptied text parts are dropped', () => {
    const limits = { thresholdChars: 100, headChars: 10, tailChars: 10 }
    const first = 'a'.repeat(60)
    const last = 'z'.repeat(60)
    const pruned = pruneContent(block([{ type: 'text', text: first }, image, { type: 'text', text: last }]), limits)!
    expect(pruned.content).toEqual([
      { type: 'text', text: 'a'.repeat(10) + pruneMarker(100) }, image, { type: 'text', text: 'z'.repeat(10) },
    ])
    const middle = pruneContent(block([{ type: 'text', text: 'h'.repeat(10) }, { type: 'text', text: 'm'.repeat(150) }, image, { type: 'text', text: 't'.repeat(10) }]), limits)!
    expect(middle.content).toEqual([{ type: 'text', text: 'h'.repeat(10) }, { type: 'text', text: pruneMarker(150) }, image, { type: 'text', text: 't'.repeat(10) }])
    const dropped = pruneContent(block([{ type: 'text', text: 'h'.repeat(10) }, { type: 'text', text: 'x'.repeat(20) }, { type: 'text', text: 'm'.repeat(150) }, { type: 'text', text: 't'.repeat(10) }]), limits)!
    expect(dropped.content).toEqual([{ type: 'text', text: 'h'.repeat(10) }, { type: 'text', text: pruneMarker(170) }, { type: 'text', text: 't'.repeat(10) }])
  })
})

describe('pruneSession', () => {
  async function sessionWithResult(text: string) {
    const env = await boot({ script: [] })
    const a = await agent(env)
    const s = a.session
    s.append('turn/start', { turn: 1 })
    s.append('user/message', { id: MessageId('u'), role: 'user', source: { kind: 'user' }, content: [{ type: 'text', text: 'read it' }] }, { surfaceOp: 'append' })
    s.append('step/start', { turn: 1, step: 1 })
    s.append('assistant/message', { turn: 1, step: 1, message: { id: MessageId('a'), role: 'assistant', source: { kind: 'model', provider: 'scripted', model: 'm1' }, content: [{ type: 'tool-call', id: CallId('c1'), name: 'read', arguments: '{}' }] } }, { surfaceOp: 'append', sourceEventSeqs: [] })
    const call = s.append('tool/call', { turn: 1, step: 1, callId: CallId('c1'), name: 'read', arguments: '{}' })
    const result = s.append('tool/result', { turn: 1, step: 1, message: { id: MessageId('r'), role: 'user', source: { kind: 'tool', callId: CallId('c1') }, content: [{ type: 'tool-result', toolCallId: CallId('c1'), content: [{ type: 'text', text }] }] }, meta: { lines: 3 } }, { surfaceOp: 'append', sourceEventSeqs: [call.seq] })
    s.append('step/end', { turn: 1, step: 1 })
    return { env, s, result }
  }

  it('L-077 compaction/prune comes right before the replacing tool/result; only the inner content and the id differ; a second pass prunes nothing', async () => {
    const { env, s, result } = await sessionWithResult('x'.repeat(20_000))
    const from = s.seq
    expect(env.compaction.pruneSession(s)).toEqual({ pruned: [], charsRemoved: 0 })
    expect(s.seq).toBe(from)
    const report = env.compaction.pruneSession(s, { includeUnread: true })
    const marker = pruneMarker(20_000 - 4096 - 1024)
    const charsAfter = 4096 + 1024 + points(marker)
    expect(report).toEqual({ pruned: [{ originalSeq: result.seq, replacementSeq: from + 1, callId: 'c1', charsBefore: 20_000, charsAfter }], charsRemoved: 20_000 - charsAfter })
    const [prune, replacement] = [s.events[from]!, s.events[from + 1]!]
    expect(prune).toMatchObject({ type: 'compaction/prune', data: {
      shadowedRange: { start: result.seq, end: result.seq }, shadowedSeqs: [result.seq],
      shadowedTokenCount: env.compaction.estimator().message(result.data.message), charsBefore: 20_000, charsAfter,
    } })
    expect(replacement).toMatchObject({ type: 'tool/result', surfaceOp: { op: 'replace', start: result.seq, end: result.seq }, sourceEventSeqs: [result.seq] })
    const original = result.data
    const rewritten = (replacement as typeof result).data
    expect(rewritten.message.id).toBe('r-pruned')
    expect(rewritten.message.content[0].content).toEqual([{ type: 'text', text: 'x'.repeat(4096) + marker + 'x'.repeat(1024) }])
    expect({ ...rewritten, message: { ...rewritten.message, id: 'r', content: [{ ...rewritten.message.content[0], content: [] }] } })
      .toEqual({ ...original, message: { ...original.message, content: [{ ...original.message.content[0], content: [] }] } })
    expect(s.surface.nodes.at(-1)).toBe(replacement.seq)
    expect(env.compaction.pruneSession(s, { includeUnread: true })).toEqual({ pruned: [], charsRemoved: 0 })
    expect(ofType(s, 'compaction/prune')).toHaveLength(1)
  })

  it('L-078 pruneSession outside an open turn throws NO_OPEN_TURN and appends nothing; under a live lock it does nothing', async () => {
    const { env, s } = await sessionWithResult('y'.repeat(9_000))
    s.append('compaction/start', { compactionId: 'k', turn: 1, trigger: 'explicit' })
    const seq = s.seq
    expect(env.compaction.pruneSession(s, { includeUnread: true })).toEqual({ pruned: [], charsRemoved: 0 })
    expect(s.seq).toBe(seq)
    s.append('compaction/end', { compactionId: 'k', turn: 1, error: { code: 'CANCELLED', message: 'compaction was cancelled' } })
    s.append('turn/end', { turn: 1, reason: { kind: 'completed' } })
    const closed = s.seq
    const error = await rejection((async () => env.compaction.pruneSession(s, { includeUnread: true }))())
    expect(error).toMatchObject({ code: 'NO_OPEN_TURN', message: 'compaction requires an open turn', name: 'CompactionError' })
    expect(s.seq).toBe(closed)
  })

  it('the companion vetoes a compaction/prune that does not name exactly one current tool/result node', async () => {
    const { s, result } = await sessionWithResult('short')
    const data = (seqs: number[]) => ({ shadowedRange: { start: seqs[0]!, end: seqs.at(-1)! }, shadowedSeqs: seqs, shadowedTokenCount: 1, charsBefore: 1, charsAfter: 1 })
    expect(() => s.append('compaction/prune', data([1]))).toThrow(`session "s" invariant: compaction/prune names seq 1, a user/message, not a tool/result`)
    expect(() => s.append('compaction/prune', data([result.seq, result.seq - 1]))).toThrow('compaction/prune must name exactly one node, got 2')
    expect(() => s.append('compaction/prune', data([0]))).toThrow('compaction/prune names seq 0, which is not a current surface node')
    s.append('compaction/prune', data([result.seq]))
  })
})

describe('pruneContent properties', () => {
  it('keeps the first headChars and last tailChars code points, inserts one marker, keeps images in order, and is idempotent', () => {
    const part = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 400 }).map(text => ({ type: 'text' as const, text })),
      fc.constant(image),
    )
    const limits = { thresholdChars: 300, headChars: 100, tailChars: 50 }
    fc.assert(fc.property(fc.array(part, { maxLength: 8 }), (content) => {
      const text = content.map(p => (p.type === 'text' ? p.text : '')).join('')
      const all = Array.from(text)
      const pruned = pruneContent(block(content), limits)
      if (all.length <= limits.thresholdChars) return pruned === null
      const marker = pruneMarker(all.length - 150)
      const after = pruned!.content.map(p => (p.type === 'text' ? p.text : '')).join('')
      expect(after).toBe(all.slice(0, 100).join('') + marker + all.slice(-50).join(''))
      expect(pruned!.content.filter(p => p.type === 'image')).toHaveLength(content.filter(p => p.type === 'image').length)
      expect(pruned!.content.every(p => p.type !== 'text' || p.text !== '')).toBe(true)
      expect(pruned!.charsAfter).toBe(Array.from(after).length)
      expect(pruneContent(block(pruned!.content), limits)).toBeNull()
      return true
    }), { numRuns: 200 })
  })
})
