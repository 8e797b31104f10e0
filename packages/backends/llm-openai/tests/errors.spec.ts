import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { parseRetryAfter } from '../src/failures.ts'
import { boot, req } from './helpers.ts'
import { drain } from '@logbook/test-kit'
import { startServer } from './server.ts'

let close: (() => Promise<void>) | undefined
afterEach(async () => {
  await close?.()
  close = undefined
})

/** Answer every request with `status`, `body` and `headers`; returns the stream's chunks. */
async function answer(status: number, body: unknown, headers: Record<string, string> = {}) {
  const server = await startServer(res => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers })
    res.end(typeof body === 'string' ? body : JSON.stringify(body))
  })
  close = server.close
  const app = await boot({ baseUrl: server.baseUrl })
  return await drain(app.llm.stream(req()))
}

const error = (message: string, type: string, code: string | null = null) => ({ error: { message, type, param: null, code } })

describe('@logbook/llm-openai HTTP errors are in-band', () => {
  it('L-086 400 context_length_exceeded → CONTEXT_WINDOW_EXCEEDED', async () => {
    const message = "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens."
    expect(await answer(400, error(message, 'invalid_request_error', 'context_length_exceeded'), { 'x-request-id': 'req_1' })).toEqual([{
      type: 'finish',
      reason: 'error',
      error: { code: 'CONTEXT_WINDOW_EXCEEDED', message: `openai: HTTP 400: ${message}`, status: 400, requestId: 'req_1' },
    }])
  })

  it('L-086 429 with Retry-After: 2 → RATE_LIMIT, retryAfterMs 2000', async () => {
    expect(await answer(429, error('Rate limit reached', 'requests', 'rate_limit_exceeded'), { 'retry-after': '2' })).toEqual([{
      type: 'finish',
      reason: 'error',
      error: { code: 'RATE_LIMIT', message: 'openai: HTTP 429: Rate limit reached', status: 429, retryAfterMs: 2000 },
    }])
  })

  it('L-086 401 → AUTH and 503 → PROVIDER', async () => {
    expect(await answer(401, error('Incorrect API key provided', 'invalid_request_error', 'invalid_api_key'))).toEqual([{
      type: 'finish', reason: 'error', error: { code: 'AUTH', message: 'openai: HTTP 401: Incorrect API key provided', status: 401 },
    }])
    await close?.()
    expect(await answer(503, 'upstream overloaded')).toEqual([{
      type: 'finish', reason: 'error', error: { code: 'PROVIDER', message: 'openai: HTTP 503: upstream overloaded', status: 503 },
    }])
  })

  it('other statuses: 400 → BAD_REQUEST, 404 → NOT_FOUND, 504 → TIMEOUT, 413 naming the window → CONTEXT_WINDOW_EXCEEDED', async () => {
    const cases: [number, unknown, string][] = [
      [400, error('Invalid value for temperature', 'invalid_request_error'), 'BAD_REQUEST'],
      [404, error('The model `x` does not exist', 'invalid_request_error', 'model_not_found'), 'NOT_FOUND'],
      [504, '', 'TIMEOUT'],
      [413, 'request exceeds the context window', 'CONTEXT_WINDOW_EXCEEDED'],
    ]
    for (const [status, body, code] of cases) {
      const [finish] = await answer(status, body)
      expect(finish).toMatchObject({ type: 'finish', reason: 'error', error: { code, status } })
      await close?.()
      close = undefined
    }
  })

  it('reads a long error body only in part and shortens its message', async () => {
    const [finish] = await answer(500, 'x'.repeat(200_000))
    expect(finish).toMatchObject({ error: { code: 'PROVIDER', message: `openai: HTTP 500: ${'x'.repeat(1000)}` } })
  })

  it('a refused connection (fetch rejection) → NETWORK', async () => {
    const probe = createServer()
    await new Promise<void>(resolve => probe.listen(0, '127.0.0.1', resolve))
    const { port } = probe.address() as AddressInfo
    await new Promise<void>(resolve => probe.close(() => resolve()))
    const app = await boot({ baseUrl: `http://127.0.0.1:${port}/v1` })
    const [finish] = await drain(app.llm.stream(req()))
    expect(finish).toMatchObject({ type: 'finish', reason: 'error', error: { code: 'NETWORK' } })
    expect((finish as { error: { message: string } }).error.message).toMatch(/^openai: network error: .*ECONNREFUSED/)
  })

  it('Retry-After accepts delta seconds and HTTP dates', () => {
    const now = Date.parse('2025-01-01T00:00:00Z')
    expect(parseRetryAfter('2', now)).toBe(2000)
    expect(parseRetryAfter('0.5', now)).toBe(500)
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:00:30 GMT', now)).toBe(30_000)
    expect(parseRetryAfter('Tue, 31 Dec 2024 00:00:00 GMT', now)).toBe(0)
    expect(parseRetryAfter('soon', now)).toBeUndefined()
    expect(parseRetryAfter(null, now)).toBeUndefined()
  })
})
