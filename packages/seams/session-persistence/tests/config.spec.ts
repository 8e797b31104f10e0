import { Context } from '@deepseek-ai/cordis'
import SessionStore from '@logbook/session'
import { describe, expect, it } from 'vitest'
import { MemoryConfigSchema } from '../src/config.ts'
import MemorySessionPersistence from '../src/index.ts'

describe('config (02 §1.5)', () => {
  it('declares the documented defaults once, in the schema', () => {
    expect(MemoryConfigSchema({})).toEqual({ writeBatchMaxDelayMs: 200, retryInitialDelayMs: 1000, retryMaxDelayMs: 30_000, packChunks: true })
    expect(MemoryConfigSchema({ storeName: 's' }).storeName).toBe('s')
  })

  it('rejects values out of range, including retryMaxDelayMs below retryInitialDelayMs', () => {
    for (const bad of [{ writeBatchMaxDelayMs: 0 }, { writeBatchMaxDelayMs: 60_001 }, { writeBatchMaxDelayMs: 1.5 },
      { retryInitialDelayMs: 9 }, { retryMaxDelayMs: 600_001 }, { retryInitialDelayMs: 2000, retryMaxDelayMs: 1000 }, { packChunks: 'yes' }]) {
      expect(() => MemoryConfigSchema(bad as never)).toThrow()
    }
  })

  it('fails the plugin with Cordis ValidationError on invalid config', async () => {
    const app = new Context()
    await app.plugin(SessionStore)
    const error = await Promise.resolve(app.plugin(MemorySessionPersistence, { writeBatchMaxDelayMs: 0 } as never)).then(() => undefined, (e: unknown) => e)
    expect(error).toMatchObject({ name: 'ValidationError' })
    expect(app.get('sessionPersistence')).toBeUndefined()
  })
})
