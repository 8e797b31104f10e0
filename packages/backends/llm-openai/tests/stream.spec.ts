import { afterEach, describe, expect, it } from 'vitest'
import type { StreamChunk } from '@logbook/session'
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
  return { server, app: await boot({ baseUrl: server.baseUrl, apiKey: 'sk-test' }) }
}

/** Split `bytes` at the given byte offsets. */
function cut(bytes: Buffer, offsets: number[]): Buffer[] {
  const sorted = [...new Set(offsets)].sort((a, b) => a - b)
  return [0, ...sorted].map((start, i) => bytes.subarray(start, sorted[i] ?? bytes.length))
}

describe('@logbook/llm-openai streaming against a local server', () => {
  it('L-084 text split across reads, CRLF and comment lines: joined text equals the source; usage then finish stop', async () => {
    const source = 'Héllo, wörld! 😀 Streaming works.'
    const parts = ['Hé', 'llo, wö', 'rld! 😀', ' Streaming', ' works.']
    const events = [
      ': OPENROUTER PROCESSING\r\n\r\n',
      `data: ${JSON.stringify(delta({ role: 'assistant', content: '' }))}\r\n\r\n`,
      ...parts.map(part => `data: ${JSON.stringify(delta({ content: part }))}\r\n\r\n`),
      ': keep-alive\r\n',
      `data: ${JSON.stringify(delta({}, 'stop'))}\r\n\r\n`,
      `data: ${JSON.stringify(usage(12, 7, { prompt_tokens_details: { cached_tokens: 3 }, completion_tokens_details: { reasoning_tokens: 2 } }))}\r\n\r\n`,
      'data: [DONE]\r\n\r\n',
    ].join('')
    const bytes = Buffer.from(events, 'utf8')
    const emoji = bytes.indexOf(Buffer.from('😀'))
    const crlf = bytes.indexOf('\r\n')
    const field = bytes.indexOf('data:', 100)
    const { app } = await serve(async res => {
      sseHead(res)
      await writeSlowly(res, cut(bytes, [emoji + 1, emoji + 3, crlf + 1, field + 2, 40, 250, bytes.length - 3]))
      res.end()
    })
    const chunks = await drain(app.llm.stream(req()))
    expect(textOf(chunks)).toBe(source)
    expect(chunks[0]).toEqual({ type: 'block-start', index: 0, blockType: 'text' })
    expect(chunks.slice(-3)).toEqual([
      { type: 'block-end', index: 0, block: { type: 'text', text: source } },
      { type: 'usage', usage: { inputTokens: 12, outputTokens: 7, cacheReadTokens: 3, reasoningTokens: 2 } },
      { type: 'finish', reason: 'stop', rawFinishReason: 'stop' },
    ])
  })

  it('L-085 a tool call streamed over several deltas is one tool-call block with the full arguments; finish tool-calls', async () => {
    const { app } = await serve(async res => {
      sseHead(res)
      await writeSlowly(res, [
        data(delta({ role: 'assistant', reasoning_content: 'Need the ' })),
        data(delta({ reasoning_content: 'file.' })),
        data(delta({ content: null, tool_calls: [{ index: 0, id: 'call_abc', type: 'function', function: { name: 'read_file', arguments: '' } }] })),
        data(delta({ tool_calls: [{ index: 0, function: { arguments: '{"pa' } }] })),
        data(delta({ tool_calls: [{ index: 0, function: { arguments: 'th": "a.txt"}' } }] })),
        data(delta({}, 'tool_calls')),
        data(usage(20, 9)),
        'data: [DONE]\n\n',
      ])
      res.end()
    })
    const chunks = await drain(app.llm.stream(req()))
    const call = 'call_abc' as never
    const expected: StreamChunk[] = [
      { type: 'block-start', index: 0, blockType: 'reasoning' },
      { type: 'reasoning-delta', index: 0, text: 'Need the ' },
      { type: 'reasoning-delta', index: 0, text: 'file.' },
      { type: 'block-start', index: 1, blockType: 'tool-call' },
      { type: 'tool-call-delta', index: 1, id: call, name: 'read_file', argumentsDelta: '' },
      { type: 'tool-call-delta', index: 1, id: call, argumentsDelta: '{"pa' },
      { type: 'tool-call-delta', index: 1, id: call, argumentsDelta: 'th": "a.txt"}' },
      { type: 'block-end', index: 0, block: { type: 'reasoning', text: 'Need the file.' } },
      { type: 'block-end', index: 1, block: { type: 'tool-call', id: call, name: 'read_file', arguments: '{"path": "a.txt"}' } },
      { type: 'usage', usage: { inputTokens: 20, outputTokens: 9 } },
      { type: 'finish', reason: 'tool-calls', rawFinishReason: 'tool_calls' },
    ]
    expect(chunks).toEqual(expected)
  })

  it('L-087 a body ending without [DONE] or finish_reason is PROTOCOL', async () => {
    const { app } = await serve(async res => {
      sseHead(res)
      await writeSlowly(res, [data(delta({ content: 'partial' }))])
      res.end()
    })
    const chunks = await drain(app.llm.stream(req()))
    expect(textOf(chunks)).toBe('partial')
    expect(finishOf(chunks)).toEqual({ type: 'finish', reason: 'error', error: { code: 'PROTOCOL', message: 'stream ended before completion' } })
  })

  it('L-087 an in-stream error object is mapped like an HTTP error', async () => {
    const { app } = await serve(async res => {
      sseHead(res)
      await writeSlowly(res, [
        data(delta({ content: 'x' })),
        data({ error: { message: 'Rate limit reached for requests', type: 'rate_limit_exceeded', code: 'rate_limit_exceeded' } }),
      ])
      res.end()
    })
    expect(finishOf(await drain(app.llm.stream(req())))).toEqual({
      type: 'finish', reason: 'error', error: { code: 'RATE_LIMIT', message: 'openai: stream error: Rate limit reached for requests' },
    })
  })

  it('bad JSON in an event is PROTOCOL', async () => {
    const { app } = await serve(async res => {
      sseHead(res)
      await writeSlowly(res, ['data: {"choices": [\n\n'])
      res.end()
    })
    expect(await drain(app.llm.stream(req()))).toEqual([
      { type: 'finish', reason: 'error', error: { code: 'PROTOCOL', message: 'openai: invalid JSON in stream event: {"choices": [' } },
    ])
  })

  it('a body that ends after a finish_reason but without [DONE] is complete', async () => {
    const { app } = await serve(async res => {
      sseHead(res)
      await writeSlowly(res, [data(delta({ content: 'ok' })), data(delta({}, 'length'))])
      res.end()
    })
    expect((await drain(app.llm.stream(req()))).slice(-2)).toEqual([
      { type: 'block-end', index: 0, block: { type: 'text', text: 'ok' } },
      { type: 'finish', reason: 'max-tokens', rawFinishReason: 'length' },
    ])
  })

  it('finish_reason content_filter ends with error CONTENT_FILTER', async () => {
    const { app } = await serve(async res => {
      sseHead(res)
      await writeSlowly(res, [data(delta({ content: 'so' }, 'content_filter')), 'data: [DONE]\n\n'])
      res.end()
    })
    expect(finishOf(await drain(app.llm.stream(req())))).toEqual({
      type: 'finish', reason: 'error', error: { code: 'CONTENT_FILTER', message: 'openai: response stopped by the content filter' },
      rawFinishReason: 'content_filter',
    })
  })

  it('a mid-stream disconnect is NETWORK', async () => {
    const { app } = await serve(async res => {
      sseHead(res)
      await writeSlowly(res, [data(delta({ content: 'Hel' }))])
      await pause()
      res.socket?.destroy()
    })
    const chunks = await drain(app.llm.stream(req()))
    expect(textOf(chunks)).toBe('Hel')
    const finish = finishOf(chunks) as Extract<StreamChunk, { type: 'finish' }>
    expect(finish.reason).toBe('error')
    expect(finish.error?.code).toBe('NETWORK')
    expect(finish.error?.message).toMatch(/^openai: network error: /)
  })
})
