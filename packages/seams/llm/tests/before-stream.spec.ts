import { describe, expect, it } from 'vitest'
import type { LlmRequest } from '../src/index.ts'
import { boot, fixedAdapter, registerAdapter, request } from './helpers.ts'
import { drain } from '@logbook/test-kit'

class CodedError extends Error {
  constructor(readonly code: string, message: string) {
    super(message)
  }
}

describe('llm/before-stream', () => {
  it('L-081 a listener rejecting CHECKPOINT_FAILED fails the attempt closed: adapter never called', async () => {
    const { app } = await boot()
    const adapter = fixedAdapter('fake', [{ type: 'finish', reason: 'stop' }])
    await registerAdapter(app, adapter)
    app.on('llm/before-stream', async () => {
      throw new CodedError('CHECKPOINT_FAILED', 'flush failed: disk full')
    })
    expect(await drain(app.llm.stream(request()))).toEqual([
      { type: 'finish', reason: 'error', error: { code: 'CHECKPOINT_FAILED', message: 'flush failed: disk full' } },
    ])
    expect(adapter.calls).toHaveLength(0)
  })

  it('carries the code of the earliest-registered failing listener', async () => {
    const { app } = await boot()
    await registerAdapter(app, fixedAdapter('fake', []))
    app.on('llm/before-stream', () => undefined)
    app.on('llm/before-stream', async () => {
      await new Promise(resolve => setTimeout(resolve, 5))
      throw new CodedError('FIRST_CODE', 'first')
    })
    app.on('llm/before-stream', () => {
      throw new CodedError('SECOND_CODE', 'second')
    })
    const [finish] = await drain(app.llm.stream(request()))
    expect(finish).toEqual({ type: 'finish', reason: 'error', error: { code: 'FIRST_CODE', message: 'first' } })
  })

  it('a listener error without a code is HOOK_FAILED', async () => {
    const { app } = await boot()
    await registerAdapter(app, fixedAdapter('fake', []))
    app.on('llm/before-stream', () => {
      throw new Error('nope')
    })
    expect(await drain(app.llm.stream(request()))).toEqual([
      { type: 'finish', reason: 'error', error: { code: 'HOOK_FAILED', message: 'llm/before-stream listener failed: nope' } },
    ])
  })

  it('is awaited with the request before the adapter is called', async () => {
    const { app } = await boot()
    const order: string[] = []
    await registerAdapter(app, {
      provider: 'fake',
      async *stream() {
        order.push('adapter')
        yield { type: 'finish', reason: 'stop' }
      },
    })
    let seen: LlmRequest | undefined
    app.on('llm/before-stream', async req => {
      seen = req
      await new Promise(resolve => setTimeout(resolve, 5))
      order.push('hook done')
    })
    const req = request('fake', { sessionId: 's1', purpose: 'turn' })
    await drain(app.llm.stream(req))
    expect(order).toEqual(['hook done', 'adapter'])
    expect(seen).toBe(req)
  })

  it('an abort during the hook ends the attempt aborted without calling the adapter', async () => {
    const { app } = await boot()
    const adapter = fixedAdapter('fake', [{ type: 'finish', reason: 'stop' }])
    await registerAdapter(app, adapter)
    const controller = new AbortController()
    app.on('llm/before-stream', () => controller.abort())
    expect(await drain(app.llm.stream(request('fake', { signal: controller.signal })))).toEqual([
      { type: 'finish', reason: 'aborted', error: { code: 'ABORTED', message: 'request aborted' } },
    ])
    expect(adapter.calls).toHaveLength(0)
  })

  it('listeners of an unloaded plugin are gone', async () => {
    const { app } = await boot()
    const adapter = fixedAdapter('fake', [{ type: 'finish', reason: 'stop' }])
    await registerAdapter(app, adapter)
    const fiber = await app.plugin({
      name: 'policy',
      apply: ctx => void ctx.on('llm/before-stream', () => { throw new CodedError('CHECKPOINT_FAILED', 'x') }),
    })
    expect((await drain(app.llm.stream(request())))[0]).toMatchObject({ reason: 'error' })
    await fiber.dispose()
    expect(await drain(app.llm.stream(request()))).toEqual([{ type: 'finish', reason: 'stop' }])
  })
})
