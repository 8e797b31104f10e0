import { describe, expect, it } from 'vitest'
import { MemoryConfigSchema, SessionPersistenceConfigSchema } from '../src/config.ts'

describe('config given no value', () => {
  it('an absent config validates to the documented defaults', () => {
    for (const schema of [SessionPersistenceConfigSchema, MemoryConfigSchema]) {
      const value = schema(undefined as never)
      expect(value).toMatchObject({ writeBatchMaxDelayMs: 200, retryInitialDelayMs: 1000, retryMaxDelayMs: 30_000, packChunks: true })
    }
  })
})
