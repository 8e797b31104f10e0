import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/** A request the fake server received. */
export interface Received {
  readonly method: string
  readonly path: string
  readonly headers: IncomingMessage['headers']
  readonly body: unknown
}

export type Handler = (res: ServerResponse, received: Received) => void | Promise<void>

/** A real HTTP server on 127.0.0.1 (random port) answering every request with `handler`. */
export async function startServer(handler: Handler) {
  const requests: Received[] = []
  const server = createServer((req, res) => {
    const parts: Buffer[] = []
    req.on('data', (part: Buffer) => parts.push(part))
    req.on('end', () => {
      const text = Buffer.concat(parts).toString('utf8')
      const received: Received = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: text === '' ? undefined : JSON.parse(text) }
      requests.push(received)
      res.socket?.setNoDelay(true)
      void Promise.resolve(handler(res, received)).catch(() => res.destroy())
    })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    async close() {
      server.closeAllConnections()
      await new Promise<void>(resolve => server.close(() => resolve()))
    },
  }
}

/** Wait on a real timer so consecutive writes reach the client in separate reads. */
export const pause = (ms = 15) => new Promise<void>(resolve => setTimeout(resolve, ms))

/** Start an SSE response. */
export function sseHead(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
  res.flushHeaders()
}

/** Write `pieces` one by one, pausing between them. */
export async function writeSlowly(res: ServerResponse, pieces: readonly (string | Buffer)[]): Promise<void> {
  for (const piece of pieces) {
    res.write(piece)
    await pause()
  }
}

/** One `data:` event (LF line endings) for a chat-completion chunk object. */
export function data(payload: unknown): string {
  return `data: ${JSON.stringify(payload)}\n\n`
}

/** A chunk with one choice carrying `delta` and optionally a finish reason. */
export function delta(value: Record<string, unknown>, finishReason: string | null = null): unknown {
  return { id: 'chatcmpl-1', object: 'chat.completion.chunk', choices: [{ index: 0, delta: value, finish_reason: finishReason }] }
}

/** The final usage chunk of `include_usage`. */
export function usage(prompt: number, completion: number, extra: Record<string, unknown> = {}): unknown {
  return { id: 'chatcmpl-1', object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: prompt, completion_tokens: completion, ...extra } }
}
