import { Context } from '@deepseek-ai/cordis'
import SessionStore from '@logbook/session'
import { describe, expect, it } from 'vitest'
import { SessionProjectionConfigSchema } from '../src/config.ts'
import SessionProjections from '../src/index.ts'

describe('config (03 §1.2)', () => {
  it('no config gives the documented defaults', () => {
    expect(SessionProjectionConfigSchema['~standard'].validate(undefined)).toEqual({
      value: { builtins: { stats: true, todos: true, title: true }, checkpoint: { enabled: true, everyEvents: 1000 } },
    })
  })

  it('everyEvents 0 or 1.5, or a non-boolean switch, fails the plugin with ValidationError naming the path', async () => {
    for (const [config, path] of [
      [{ checkpoint: { everyEvents: 0 } }, 'checkpoint.everyEvents'],
      [{ checkpoint: { everyEvents: 1.5 } }, 'checkpoint.everyEvents'],
      [{ builtins: { stats: 'yes' } }, 'builtins.stats'],
    ] as const) {
      const app = new Context()
      app.logger.exporter({ levels: { default: -1 }, export: () => {} })
      await app.plugin(SessionStore)
      const fiber = app.plugin(SessionProjections, config as never)
      await expect(fiber).rejects.toMatchObject({ name: 'ValidationError', message: expect.stringContaining(`(at ${path})`) })
      expect(app.get('sessionProjections')).toBeUndefined()
    }
  })
})
