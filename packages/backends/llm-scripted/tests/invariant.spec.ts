import { Context } from '@deepseek-ai/cordis'
import { describe, expect, it } from 'vitest'
import * as invariant from '../src/invariant.ts'

describe('./invariant', () => {
  it('is a no-op companion named llm-scripted-invariant that loads in a real app', async () => {
    const app = new Context()
    const fiber = await app.plugin(invariant)
    expect(invariant.name).toBe('llm-scripted-invariant')
    expect(fiber.state).toBe(2)
  })
})
