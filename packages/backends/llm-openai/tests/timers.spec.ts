import type { ServerResponse } from 'node:http'
import type { StreamChunk } from '@logbook/session'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { boot, req } from './helpers.ts'
import { data, delta, sseHead, startServer } from './server.ts'

let close: (() => Promise<void>) | undefined
afterEach(async () => {
  vi.useRealTimers()
  await close?.()
  close = undefined
})

/** A server that sends one text delta and then stays silent with the connection open. */
async function stalled() {
  const responses: ServerResponse[] = []
  const server = await startServer(res => {
    responses.push(res)
    sseHead(res)
    res.write(data(delta({ content: 'Hel' })))
  })
  close = server.close
  return server
}

const flushIo = () => new Promise<void>(resolve => setImmediate(resolve))

async function untilText(iterator: AsyncIterator<StreamChunk>): Promise<StreamChunk[]> {
  const seen: StreamChunk[] = []
  for (;;) {
    const { value } = await iterator.next()
    seen.push(value as StreamChunk)
    if ((value as StreamChunk).type === 'text-delta') return seen
  }
}

describe('@logbook/llm-openai abort and idle timeout', () => {
  it('L-089 [ft] an abort mid-stream gives finish aborted', async () => {
    const server = await stalled()
    const app = await boot({ baseUrl: server.baseUrl })
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const controller = new AbortController()
    const iterator = app.llm.stream(req({ signal: controller.signal }))[Symbol.asyncIterator]()
    expect(await untilText(iterator)).toEqual([
      { type: 'block-start', index: 0, blockType: 'text' },
      { type: 'text-delta', index: 0, text: 'Hel' },
    ])
    const next = iterator.next()
    await flushIo()
    controller.abort()
    expect(await next).toEqual({ done: false, value: { type: 'finish', reason: 'aborted', error: { code: 'ABORTED', message: 'request aborted' } } })
    expect((await iterator.next()).done).toBe(true)
  })

  it('L-089 [ft] no bytes for timeoutMs → TIMEOUT', async () => {
    const server = await stalled()
    const app = await boot({ baseUrl: server.baseUrl, timeoutMs: 5000 })
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const iterator = app.llm.stream(req())[Symbol.asyncIterator]()
    await untilText(iterator)
    const state = { settled: false }
    const next = iterator.next()
    void next.then(() => (state.settled = true))
    await flushIo()
    await vi.advanceTimersByTimeAsync(4999)
    await flushIo()
    expect(state.settled).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    expect(await next).toEqual({
      done: false,
      value: { type: 'finish', reason: 'error', error: { code: 'TIMEOUT', message: 'openai: no data received for 5000 ms' } },
    })
  })

  it('[ft] a server that never answers the request also times out', async () => {
    const server = await startServer(() => {})
    close = server.close
    const app = await boot({ baseUrl: server.baseUrl, timeoutMs: 3000 })
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const iterator = app.llm.stream(req())[Symbol.asyncIterator]()
    const next = iterator.next()
    while (server.requests.length === 0) await flushIo()
    await vi.advanceTimersByTimeAsync(3000)
    expect(await next).toEqual({
      done: false,
      value: { type: 'finish', reason: 'error', error: { code: 'TIMEOUT', message: 'openai: no data received for 3000 ms' } },
    })
  })
})
