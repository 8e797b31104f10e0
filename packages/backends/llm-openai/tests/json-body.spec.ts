import { afterEach, describe, expect, it } from 'vitest'
import { boot, req } from './helpers.ts'
import { drain } from '@logbook/test-kit'
import { startServer, type Handler } from './server.ts'

let close: (() => Promise<void>) | undefined
afterEach(async () => {
  await close?.()
  close = undefined
})

async function answer(body: string, contentType = 'application/json') {
  const handler: Handler = res => {
    res.writeHead(200, { 'content-type': contentType })
    res.end(body)
  }
  const server = await startServer(handler)
  close = server.close
  const app = await boot({ baseUrl: server.baseUrl })
  return drain(app.llm.stream(req()))
}

describe('@logbook/llm-openai 200 responses without events', () => {
  it('L-146 a JSON error object is a failure with its message and mapped code', async () => {
    const chunks = await answer(JSON.stringify({ error: { message: 'Model is overloaded, try later', type: 'server_error', code: 503 } }))
    expect(chunks).toEqual([{
      type: 'finish', reason: 'error',
      error: { code: 'PROVIDER', message: 'openai: error in the response body: Model is overloaded, try later', status: 503 },
    }])
    const limited = await answer(JSON.stringify({ error: { message: 'Rate limit reached', type: 'rate_limit_exceeded' } }), 'text/event-stream')
    expect(limited).toEqual([{ type: 'finish', reason: 'error', error: { code: 'RATE_LIMIT', message: 'openai: error in the response body: Rate limit reached' } }])
  })

  it('L-146 a non-streaming chat completion is accepted as the answer: its parts, usage and finish', async () => {
    const completion = {
      id: 'chatcmpl-9', object: 'chat.completion',
      choices: [{
        index: 0, finish_reason: 'tool_calls',
        message: {
          role: 'assistant', content: 'Reading it.', reasoning_content: 'Need the file.',
          tool_calls: [{ id: 'call_7', type: 'function', function: { name: 'read', arguments: '{"p":"a"}' } }],
        },
      }],
      usage: { prompt_tokens: 11, completion_tokens: 6 },
    }
    const call = 'call_7' as never
    expect(await answer(JSON.stringify(completion, null, 2))).toEqual([
      { type: 'block-start', index: 0, blockType: 'reasoning' },
      { type: 'reasoning-delta', index: 0, text: 'Need the file.' },
      { type: 'block-start', index: 1, blockType: 'text' },
      { type: 'text-delta', index: 1, text: 'Reading it.' },
      { type: 'block-start', index: 2, blockType: 'tool-call' },
      { type: 'tool-call-delta', index: 2, id: call, name: 'read', argumentsDelta: '{"p":"a"}' },
      { type: 'block-end', index: 0, block: { type: 'reasoning', text: 'Need the file.' } },
      { type: 'block-end', index: 1, block: { type: 'text', text: 'Reading it.' } },
      { type: 'block-end', index: 2, block: { type: 'tool-call', id: call, name: 'read', arguments: '{"p":"a"}' } },
      { type: 'usage', usage: { inputTokens: 11, outputTokens: 6 } },
      { type: 'finish', reason: 'tool-calls', rawFinishReason: 'tool_calls' },
    ])
  })

  it('L-146 other JSON, and a body that is neither events nor JSON, are PROTOCOL failures naming the body', async () => {
    expect(await answer('{"detail":"not here"}')).toEqual([{
      type: 'finish', reason: 'error',
      error: { code: 'PROTOCOL', message: 'openai: the response body is JSON but neither a chat completion nor an error: {"detail":"not here"}' },
    }])
    expect(await answer('<html>gateway</html>\n', 'text/html')).toEqual([{
      type: 'finish', reason: 'error', error: { code: 'PROTOCOL', message: 'stream ended before completion; the body held no events: <html>gateway</html>' },
    }])
    expect(await answer('', 'text/event-stream')).toEqual([
      { type: 'finish', reason: 'error', error: { code: 'PROTOCOL', message: 'stream ended before completion' } },
    ])
  })
})
