/**
 * A local OpenAI-compatible chat-completions server for `run --config` tests: it streams
 * "You said: <last user text>" as SSE deltas, then `finish_reason: stop`, usage and `[DONE]`. By what the last user
 * text contains: "fail" → HTTP 503 "overloaded"; "think" → reasoning ("Let me think.") before the text; "refuse" →
 * a refusal ("I cannot help with that.") instead of text; "cut" → the connection closes right after the
 * finish reason; "strange" → finish reason `insufficient_system_resource`.
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
      if (last.includes('think')) send({ id: 'c1', choices: [{ index: 0, delta: { role: 'assistant', reasoning_content: 'Let me think.' } }] })
      if (last.includes('refuse')) {
        send({ id: 'c1', choices: [{ index: 0, delta: { role: 'assistant', content: null, refusal: 'I cannot ' } }] })
        send({ id: 'c1', choices: [{ index: 0, delta: { refusal: 'help with that.' } }] })
      } else {
        send({ id: 'c1', choices: [{ index: 0, delta: { role: 'assistant', content: reply.slice(0, 5) } }] })
        send({ id: 'c1', choices: [{ index: 0, delta: { content: reply.slice(5) } }] })
      }
      send({ id: 'c1', choices: [{ index: 0, delta: {}, finish_reason: last.includes('strange') ? 'insufficient_system_resource' : 'stop' }] })
      if (last.includes('cut')) {
        // Ends the connection after the bytes written so far, without the chunked terminator: a cut, not an end.
        response.socket?.end()
        return
      }
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
