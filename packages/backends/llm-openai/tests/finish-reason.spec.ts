import { afterEach, describe, expect, it } from 'vitest'
import { boot, finishOf, req, textOf } from './helpers.ts'
import { drain } from '@logbook/test-kit'
import { data, delta, pause, sseHead, startServer, usage, writeSlowly, type Handler } from './server.ts'

let close: (() => Promise<void>) | undefined
afterEach(async () => {
  await close?.()
  close = undefined
})

async function serve(handler: Handler) {
  const server = await startServer(handler)
  close = server.close
  return boot({ baseUrl: server.baseUrl })
}

describe('@logbook/llm-openai finish reasons', () => {
  it('L-143 an unknown finish_reason ends the attempt as a PROVIDER error that keeps the raw reason', async () => {
    const app = await serve(async res => {
      sseHead(res)
      await writeSlowly(res, [data(delta({ content: 'The answer is' })), data(delta({}, 'insufficient_system_resource')), data(usage(5, 3)), 'data: [DONE]\n\n'])
      res.end()
    })
    const chunks = await drain(app.llm.stream(req()))
    expect(textOf(chunks)).toBe('The answer is')
    expect(chunks.slice(-3)).toEqual([
      { type: 'block-end', index: 0, block: { type: 'text', text: 'The answer is' } },
      { type: 'usage', usage: { inputTokens: 5, outputTokens: 3 } },
      {
        type: 'finish', reason: 'error', rawFinishReason: 'insufficient_system_resource',
        error: {
          code: 'PROVIDER',
          message: 'openai: the response ended with finish_reason "insufficient_system_resource", which this adapter does not know; the answer may be incomplete',
        },
      },
    ])
  })

  it('L-143 every known finish_reason is kept raw beside the mapped reason', async () => {
    for (const [raw, reason] of [['stop', 'stop'], ['length', 'max-tokens'], ['tool_calls', 'tool-calls'], ['function_call', 'tool-calls']] as const) {
      const app = await serve(res => {
        sseHead(res)
        res.end(data(delta({ content: 'x' }, raw)) + 'data: [DONE]\n\n')
      })
      expect(finishOf(await drain(app.llm.stream(req())))).toEqual({ type: 'finish', reason, rawFinishReason: raw })
      await close?.()
      close = undefined
    }
  })

  it('L-144 a connection cut after finish_reason, before the usage chunk, completes the attempt without usage', async () => {
    const app = await serve(async res => {
      sseHead(res)
      await writeSlowly(res, [data(delta({ content: 'Done.' })), data(delta({}, 'stop'))])
      await pause()
      res.socket?.destroy()
    })
    const chunks = await drain(app.llm.stream(req()))
    expect(chunks.some(chunk => chunk.type === 'usage')).toBe(false)
    expect(chunks.slice(-2)).toEqual([
      { type: 'block-end', index: 0, block: { type: 'text', text: 'Done.' } },
      { type: 'finish', reason: 'stop', rawFinishReason: 'stop' },
    ])
  })
})
