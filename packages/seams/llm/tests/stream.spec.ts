import type { StreamChunk } from '@logbook/session'
import { describe, expect, it } from 'vitest'
import { LlmError, LlmFailureError, type LlmAdapter } from '../src/index.ts'
import { boot, fixedAdapter, registerAdapter, request } from './helpers.ts'
import { drain } from '@logbook/test-kit'

const text = (index: number, t: string): StreamChunk => ({ type: 'text-delta', index, text: t })
const stop: StreamChunk = { type: 'finish', reason: 'stop' }
const usage = (n: number): StreamChunk => ({ type: 'usage', usage: { inputTokens: n, outputTokens: n } })

describe('ctx.llm registry', () => {
  it('registers adapters per provider, lists them in order and reports model info', async () => {
    const { app } = await boot()
    await registerAdapter(app, { ...fixedAdapter('a', []), modelInfo: model => (model === 'big' ? { contextWindow: 1000 } : undefined) })
    await registerAdapter(app, fixedAdapter('b', []))
    expect(app.llm.providers()).toEqual(['a', 'b'])
    expect(app.llm.modelInfo('a', 'big')).toEqual({ contextWindow: 1000 })
    expect(app.llm.modelInfo('a', 'small')).toBeUndefined()
    expect(app.llm.modelInfo('b', 'big')).toBeUndefined()
    expect(app.llm.modelInfo('nope', 'big')).toBeUndefined()
  })

  it('removes an adapter through its disposer and when the registering plugin unloads', async () => {
    const { app } = await boot()
    const dispose = app.llm.register(fixedAdapter('a', []))
    const fiber = await registerAdapter(app, fixedAdapter('b', []))
    expect(app.llm.providers()).toEqual(['a', 'b'])
    dispose()
    expect(app.llm.providers()).toEqual(['b'])
    await fiber.dispose()
    expect(app.llm.providers()).toEqual([])
    app.llm.register(fixedAdapter('b', []))
    expect(app.llm.providers()).toEqual(['b'])
  })

  it('rejects an adapter without a provider or a stream method', async () => {
    const { app } = await boot()
    expect(() => app.llm.register({ provider: '', stream: fixedAdapter('x', []).stream })).toThrow(TypeError)
    expect(() => app.llm.register({ provider: 'x' } as unknown as LlmAdapter)).toThrow('adapter "x" has no stream method')
    expect(app.llm.providers()).toEqual([])
  })
})

describe('ctx.llm.stream normalisation', () => {
  it('L-079 an adapter throwing {code: RATE_LIMIT} gives one finish error RATE_LIMIT and nothing after', async () => {
    const { app } = await boot()
    await registerAdapter(app, {
      provider: 'fake',
      async *stream() {
        yield text(0, 'he')
        throw { code: 'RATE_LIMIT', message: 'slow down', retryAfterMs: 1500 }
      },
    })
    const chunks = await drain(app.llm.stream(request()))
    expect(chunks).toEqual([
      text(0, 'he'),
      { type: 'finish', reason: 'error', error: { code: 'RATE_LIMIT', message: 'slow down', retryAfterMs: 1500 } },
    ])
  })

  it('L-079 a throw without a code becomes PROVIDER; an LlmFailureError keeps its failure', async () => {
    const { app } = await boot()
    await registerAdapter(app, { provider: 'plain', stream: () => { throw new Error('boom') } })
    await registerAdapter(app, {
      provider: 'typed',
      async *stream() { throw new LlmFailureError({ code: 'AUTH', message: 'bad key', status: 401 }) },
    })
    expect(await drain(app.llm.stream(request('plain')))).toEqual([
      { type: 'finish', reason: 'error', error: { code: 'PROVIDER', message: 'boom' } },
    ])
    expect(await drain(app.llm.stream(request('typed')))).toEqual([
      { type: 'finish', reason: 'error', error: { code: 'AUTH', message: 'bad key', status: 401 } },
    ])
  })

  it('L-080 an unknown provider is NO_ADAPTER', async () => {
    const { app } = await boot()
    expect(await drain(app.llm.stream(request('ghost')))).toEqual([
      { type: 'finish', reason: 'error', error: { code: 'NO_ADAPTER', message: 'no model adapter is registered for provider "ghost"' } },
    ])
  })

  it('L-080 a second adapter for a provider is DUPLICATE_PROVIDER and the first keeps serving', async () => {
    const { app } = await boot()
    const first = fixedAdapter('fake', [text(0, 'one'), stop])
    await registerAdapter(app, first)
    let caught: unknown
    try {
      app.llm.register(fixedAdapter('fake', []))
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(LlmError)
    expect(caught).toMatchObject({ code: 'DUPLICATE_PROVIDER', message: 'provider "fake" already has a model adapter' })
    await drain(app.llm.stream(request()))
    expect(first.calls).toHaveLength(1)
  })

  it('L-080 an adapter ending without finish gives PROTOCOL', async () => {
    const { app } = await boot()
    await registerAdapter(app, fixedAdapter('fake', [text(0, 'x')]))
    expect(await drain(app.llm.stream(request()))).toEqual([
      text(0, 'x'),
      { type: 'finish', reason: 'error', error: { code: 'PROTOCOL', message: 'adapter "fake" ended the stream without a finish chunk' } },
    ])
  })

  it('L-080 chunks after finish are dropped, each with a warning', async () => {
    const { app, warnings } = await boot()
    await registerAdapter(app, fixedAdapter('fake', [text(0, 'x'), stop, text(0, 'late'), usage(1)]))
    expect(await drain(app.llm.stream(request()))).toEqual([text(0, 'x'), stop])
    expect(warnings()).toEqual([
      'adapter "fake" sent a text-delta chunk after finish; dropped',
      'adapter "fake" sent a usage chunk after finish; dropped',
    ])
  })

  it('keeps the first usage only, warning for each later one', async () => {
    const { app, warnings } = await boot()
    await registerAdapter(app, fixedAdapter('fake', [usage(1), usage(2), stop]))
    expect(await drain(app.llm.stream(request()))).toEqual([usage(1), stop])
    expect(warnings()).toEqual(['adapter "fake" sent a second usage chunk; dropped'])
  })

  it('a missing provider or model is BAD_REQUEST and calls no adapter', async () => {
    const { app } = await boot()
    const adapter = fixedAdapter('fake', [stop])
    await registerAdapter(app, adapter)
    const noModel = await drain(app.llm.stream({ ...request(), config: { provider: 'fake', model: '' } }))
    const noProvider = await drain(app.llm.stream({ ...request(), config: { model: 'm' } as never }))
    expect(noModel).toEqual([{ type: 'finish', reason: 'error', error: { code: 'BAD_REQUEST', message: 'request config has no model' } }])
    expect(noProvider).toEqual([{ type: 'finish', reason: 'error', error: { code: 'BAD_REQUEST', message: 'request config has no provider' } }])
    expect(adapter.calls).toHaveLength(0)
  })

  it('an abort while the adapter hangs gives finish aborted, and a pre-aborted request never calls the adapter', async () => {
    const { app } = await boot()
    let calls = 0
    await registerAdapter(app, {
      provider: 'fake',
      async *stream() {
        calls++
        yield text(0, 'Hel')
        await new Promise(() => {})
      },
    })
    const controller = new AbortController()
    const chunks: StreamChunk[] = []
    for await (const chunk of app.llm.stream(request('fake', { signal: controller.signal }))) {
      chunks.push(chunk)
      if (chunk.type === 'text-delta') controller.abort()
    }
    const aborted: StreamChunk = { type: 'finish', reason: 'aborted', error: { code: 'ABORTED', message: 'request aborted' } }
    expect(chunks).toEqual([text(0, 'Hel'), aborted])
    expect(await drain(app.llm.stream(request('fake', { signal: controller.signal })))).toEqual([aborted])
    expect(calls).toBe(1)
  })

  it('fills the error of an adapter finish that lacks one', async () => {
    const { app } = await boot()
    await registerAdapter(app, fixedAdapter('fake', [{ type: 'finish', reason: 'error' }]))
    expect(await drain(app.llm.stream(request()))).toEqual([
      { type: 'finish', reason: 'error', error: { code: 'PROVIDER', message: 'adapter "fake" finished with an error but gave no details' } },
    ])
  })

  it('is lazy: an unpulled stream calls neither hook nor adapter', async () => {
    const { app } = await boot()
    const adapter = fixedAdapter('fake', [stop])
    await registerAdapter(app, adapter)
    let hooks = 0
    app.on('llm/before-stream', () => void hooks++)
    const stream = app.llm.stream(request())
    await Promise.resolve()
    expect([hooks, adapter.calls.length]).toEqual([0, 0])
    await drain(stream)
    expect([hooks, adapter.calls.length]).toEqual([1, 1])
  })
})
