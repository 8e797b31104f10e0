import type { StreamChunk } from '@logbook/session'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { boot, req, user } from './helpers.ts'
import { drain } from '@logbook/test-kit'

/** Ask for the next chunk and advance the fake clock by `ms`; reports whether the chunk arrived meanwhile. */
async function pull(iterator: AsyncIterator<StreamChunk>, ms: number) {
  const state = { settled: false }
  const next = iterator.next()
  void next.then(() => (state.settled = true))
  await vi.advanceTimersByTimeAsync(ms)
  return { state, next }
}

const aborted: StreamChunk = { type: 'finish', reason: 'aborted', error: { code: 'ABORTED', message: 'request aborted' } }

afterEach(() => {
  vi.useRealTimers()
})

describe('@logbook/llm-scripted timers, failures and hangs', () => {
  it('L-083 [ft] hang: the content, then no finish until abort, then finish aborted', async () => {
    const app = await boot({ script: [{ text: 'Hel', hang: true }] })
    vi.useFakeTimers()
    const controller = new AbortController()
    const iterator = app.llm.stream(req([user('go')], { signal: controller.signal }))[Symbol.asyncIterator]()
    const content: StreamChunk[] = []
    for (let i = 0; i < 3; i++) content.push((await iterator.next()).value as StreamChunk)
    expect(content).toEqual([
      { type: 'block-start', index: 0, blockType: 'text' },
      { type: 'text-delta', index: 0, text: 'Hel' },
      { type: 'block-end', index: 0, block: { type: 'text', text: 'Hel' } },
    ])
    const waiting = await pull(iterator, 3_600_000)
    expect(waiting.state.settled).toBe(false)
    controller.abort()
    expect(await waiting.next).toEqual({ done: false, value: aborted })
    expect((await iterator.next()).done).toBe(true)
  })

  it('L-083 error.afterChunks 2: two content chunks, then finish error', async () => {
    const app = await boot({
      script: [
        { text: 'Hello world', chunkSize: 4, error: { code: 'PROVIDER', message: 'upstream broke', afterChunks: 2 } },
        { text: 'Hello world', error: { code: 'RATE_LIMIT', message: 'thrown', afterChunks: 1, throw: true } },
        { text: 'x', error: { code: 'NETWORK', message: 'at once' } },
      ],
    })
    expect(await drain(app.llm.stream(req([user('a')])))).toEqual([
      { type: 'block-start', index: 0, blockType: 'text' },
      { type: 'text-delta', index: 0, text: 'Hell' },
      { type: 'finish', reason: 'error', error: { code: 'PROVIDER', message: 'upstream broke' } },
    ])
    expect(await drain(app.llm.stream(req([user('a')])))).toEqual([
      { type: 'block-start', index: 0, blockType: 'text' },
      { type: 'finish', reason: 'error', error: { code: 'RATE_LIMIT', message: 'thrown' } },
    ])
    expect(await drain(app.llm.stream(req([user('a')])))).toEqual([
      { type: 'finish', reason: 'error', error: { code: 'NETWORK', message: 'at once' } },
    ])
  })

  it('[ft] delayMs holds the first chunk and chunkDelayMs each later content chunk', async () => {
    const app = await boot({ script: [{ text: 'abcd', chunkSize: 2, delayMs: 1000, chunkDelayMs: 100 }] })
    vi.useFakeTimers()
    const iterator = app.llm.stream(req([user('go')]))[Symbol.asyncIterator]()
    const first = await pull(iterator, 999)
    expect(first.state.settled).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    expect((await first.next).value).toEqual({ type: 'block-start', index: 0, blockType: 'text' })
    const second = await pull(iterator, 99)
    expect(second.state.settled).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    expect((await second.next).value).toEqual({ type: 'text-delta', index: 0, text: 'ab' })
    const rest: StreamChunk[] = []
    for (;;) {
      const step = await pull(iterator, 100)
      const result = await step.next
      if (result.done) break
      rest.push(result.value)
    }
    expect(rest.map(c => c.type)).toEqual(['text-delta', 'block-end', 'usage', 'finish'])
  })

  it('[ft] an abort during delayMs ends the attempt aborted', async () => {
    const app = await boot({ script: [{ text: 'late', delayMs: 5000 }] })
    vi.useFakeTimers()
    const controller = new AbortController()
    const iterator = app.llm.stream(req([user('go')], { signal: controller.signal }))[Symbol.asyncIterator]()
    const first = await pull(iterator, 10)
    controller.abort()
    expect((await first.next).value).toEqual(aborted)
  })
})
