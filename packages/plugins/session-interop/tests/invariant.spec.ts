import { Context } from '@deepseek-ai/cordis'
import { describe, expect, it } from 'vitest'
import * as Invariant from '../src/invariant.ts'

describe('./invariant', () => {
  it('is a no-op companion named session-interop-invariant that loads into any app', async () => {
    expect(Invariant.name).toBe('session-interop-invariant')
    const app = new Context()
    const fiber = app.plugin(Invariant)
    await fiber
    expect(fiber.state).toBe(2)
    await fiber.dispose()
  })
})
