import { createHash } from 'node:crypto'
import type { StreamChunk } from '@logbook/session'
import { describe, expect, it } from 'vitest'
import { defaultTokenEstimator } from '@logbook/llm'
import { scriptedCallId } from '../src/reply.ts'
import { assistantCall, boot, req, textOf, toolResult, user } from './helpers.ts'
import { drain } from '@logbook/test-kit'

describe('@logbook/llm-scripted responses', () => {
  it('L-082 entries matching by lastUserIncludes and purpose are chosen; a used-up script is SCRIPT_EXHAUSTED', async () => {
    const app = await boot({ script: 'tests/fixtures/basic.json' })
    const weather = await drain(app.llm.stream(req([user('what is the weather like?')])))
    const summary = await drain(app.llm.stream(req([user('the weather again')], { purpose: 'compaction' })))
    const plain = await drain(app.llm.stream(req([user('the weather again')])))
    const exhausted = await drain(app.llm.stream(req([user('x'.repeat(30) + 'ééééééééééééé')])))
    expect([textOf(weather), textOf(summary), textOf(plain)]).toEqual(['Sunny.', 'SUMMARY', 'Hello there!'])
    expect(exhausted).toEqual([{
      type: 'finish',
      reason: 'error',
      error: {
        code: 'SCRIPT_EXHAUSTED',
        message: `scripted model has no response for this request (purpose turn, last user text "${'x'.repeat(30)}éééééééééé")`,
      },
    }])
  })

  it('L-082 two runs of the same script give identical chunks, generated call ids included', async () => {
    const script = [
      { reasoning: 'Let me look.', text: 'Reading the file.', toolCalls: [{ name: 'read', arguments: { path: 'a.txt' } }] },
      { match: { afterTool: 'read' }, text: 'Done: the file says hi.' },
    ]
    const run = async () => {
      const app = await boot({ script })
      const first = await drain(app.llm.stream(req([user('read a.txt')])))
      const callId = (first.find(c => c.type === 'block-end' && c.block.type === 'tool-call') as { block: { id: string } }).block.id
      const second = await drain(app.llm.stream(req([user('read a.txt'), assistantCall(callId, 'read'), toolResult(callId, 'hi')])))
      return [...first, ...second]
    }
    const [a, b] = [await run(), await run()]
    expect(a).toEqual(b)
    expect(textOf(a)).toBe('Reading the file.Done: the file says hi.')
    expect(a).toContainEqual({ type: 'block-end', index: 2, block: { type: 'tool-call', id: scriptedCallId('s1', 1, 0, 0), name: 'read', arguments: '{"path":"a.txt"}' } })
    expect(scriptedCallId('s1', 1, 0, 0)).toBe(`call_${createHash('sha256').update('s1:1:0:0').digest('hex').slice(0, 8)}`)
  })

  it('emits reasoning, text, then calls with chunkSize code-point deltas, then usage and finish', async () => {
    const app = await boot({ script: [{ reasoning: 'hmm', text: 'ab😀cdé', toolCalls: [{ id: 'c1', name: 't', arguments: '{"k":1}' }] }], chunkSize: 3 })
    const messages = [user('go')]
    const chunks = await drain(app.llm.stream(req(messages, { system: 'sys' })))
    const blocks = [
      { type: 'reasoning', text: 'hmm' },
      { type: 'text', text: 'ab😀cdé' },
      { type: 'tool-call', id: 'c1', name: 't', arguments: '{"k":1}' },
    ] as const
    const est = defaultTokenEstimator
    const expected: StreamChunk[] = [
      { type: 'block-start', index: 0, blockType: 'reasoning' },
      { type: 'reasoning-delta', index: 0, text: 'hmm' },
      { type: 'block-end', index: 0, block: blocks[0] },
      { type: 'block-start', index: 1, blockType: 'text' },
      { type: 'text-delta', index: 1, text: 'ab😀' },
      { type: 'text-delta', index: 1, text: 'cdé' },
      { type: 'block-end', index: 1, block: blocks[1] },
      { type: 'block-start', index: 2, blockType: 'tool-call' },
      { type: 'tool-call-delta', index: 2, id: 'c1' as never, name: 't', argumentsDelta: '{"k' },
      { type: 'tool-call-delta', index: 2, id: 'c1' as never, argumentsDelta: '":1' },
      { type: 'tool-call-delta', index: 2, id: 'c1' as never, argumentsDelta: '}' },
      { type: 'block-end', index: 2, block: blocks[2] as never },
      {
        type: 'usage',
        usage: {
          inputTokens: est.text('sys') + est.message(messages[0]!),
          outputTokens: 4 + est.text('hmm') + est.text('ab😀cdé') + 4 + est.text('t') + est.text('{"k":1}'),
        },
      },
      { type: 'finish', reason: 'tool-calls' },
    ]
    expect(chunks).toEqual(expected)
  })

  it('uses an entry `times` times per session id; `repeat` never runs out', async () => {
    const app = await boot({ script: [{ text: 'twice', times: 2 }, { text: 'always', repeat: true }] })
    const texts = async (sessionId: string, n: number) => {
      const out: string[] = []
      for (let i = 0; i < n; i++) out.push(textOf(await drain(app.llm.stream(req([user('hi')], { sessionId })))))
      return out
    }
    expect(await texts('a', 4)).toEqual(['twice', 'twice', 'always', 'always'])
    expect(await texts('b', 3)).toEqual(['twice', 'twice', 'always'])
  })

  it('honours usage, finish and the afterTool condition', async () => {
    const app = await boot({
      script: [
        { match: { afterTool: 'grep' }, text: 'after grep', usage: { inputTokens: 3, outputTokens: 4 }, finish: 'max-tokens' },
        { text: 'fallback', repeat: true },
      ],
    })
    const afterRead = await drain(app.llm.stream(req([user('x'), assistantCall('c', 'read'), toolResult('c', 'ok')])))
    const afterGrep = await drain(app.llm.stream(req([user('x'), assistantCall('c', 'grep'), toolResult('c', 'ok')])))
    expect(textOf(afterRead)).toBe('fallback')
    expect(afterGrep.slice(-2)).toEqual([
      { type: 'usage', usage: { inputTokens: 3, outputTokens: 4 } },
      { type: 'finish', reason: 'max-tokens' },
    ])
  })

  it('reports its context window for every model', async () => {
    const app = await boot({ script: [], contextWindow: 1000 })
    expect(app.llm.modelInfo('scripted', 'anything')).toEqual({ contextWindow: 1000 })
    expect(app.llm.providers()).toEqual(['scripted'])
  })
})
