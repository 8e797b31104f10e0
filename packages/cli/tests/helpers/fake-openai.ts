/**
 * A local OpenAI-compatible chat-completions server for `run --config` tests: it streams
 * "You said: <last user text>" as SSE deltas, then `finish_reason: stop`, usage and `[DONE]` — or answers
 * HTTP 503 "overloaded" when that text contains "fail".
 */

import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

/** A running fake server. */
export interface FakeOpenAi {
  readonly baseUrl: string
  readonly requests: unknown[]
  /** The `authorization` header of each request (undefined when absent). */
  readonly authorizations: (string | undefined)[]
  close(): Promise<void>
}

/** Start the server on an ephemeral port of 127.0.0.1. */
export async function startFakeOpenAi(): Promise<FakeOpenAi> {
  const requests: unknown[] = []
  const authorizations: (string | undefined)[] = []
  const server: Server = createServer((request, response) => {
    authorizations.push(request.headers.authorization)
    let body = ''
    request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk))
    request.on('end', () => {
      const parsed = JSON.parse(body) as { messages: { role: string; content: string }[] }
      requests.push(parsed)
      const last = [...parsed.messages].reverse().find(message => message.role === 'user')?.content ?? ''
      if (last.includes('fail')) {
        response.writeHead(503, { 'content-type': 'application/json' })
        response.end(JSON.stringify({ error: { message: 'overloaded' } }))
        return
      }
      const reply = `You said: ${last}`
      response.writeHead(200, { 'content-type': 'text/event-stream' })
      const send = (value: unknown): boolean => response.write(`data: ${JSON.stringify(value)}\r\n\r\n`)
      response.write(': keep-alive comment\n\n')
      send({ id: 'c1', choices: [{ index: 0, delta: { role: 'assistant', content: reply.slice(0, 5) } }] })
      send({ id: 'c1', choices: [{ index: 0, delta: { content: reply.slice(5) } }] })
      send({ id: 'c1', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })
      send({ id: 'c1', choices: [], usage: { prompt_tokens: 12, completion_tokens: 4 } })
      response.end('data: [DONE]\n\n')
    })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    authorizations,
    close: () => new Promise(resolve => server.close(() => resolve())),
  }
}
