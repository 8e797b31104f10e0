import { Context } from '@deepseek-ai/cordis'
import Llm from '@logbook/llm'
import SessionStore from '@logbook/session'
import { describe, expect, it } from 'vitest'
import { DEFAULTS, resolveConfig } from '../src/config.ts'
import BasicCompaction, { CompactionConfigError } from '../src/index.ts'

const message = (path: string, reason: string) => `invalid config for @logbook/compaction-basic: ${path}: ${reason}`

function invalid(input: unknown): string {
  try {
    resolveConfig(input)
  } catch (error) {
    expect(error).toBeInstanceOf(CompactionConfigError)
    expect((error as CompactionConfigError).code).toBe('INVALID_CONFIG')
    return (error as Error).message
  }
  throw new Error('expected the config to be rejected')
}

describe('compaction-basic config', () => {
  it('L-055 no config → the documented defaults, frozen', async () => {
    const config = resolveConfig(undefined)
    expect(config).toEqual({
      auto: true, thresholdRatio: 0.8, retainRatio: 0.2, manualRetainTokens: 0, maxTokens: 8192, compactionRetries: 1,
      maxOverflowRetries: 1, contextWindows: [], prune: { enabled: true, thresholdChars: 8192, headChars: 4096, tailChars: 1024 },
    })
    expect(resolveConfig({})).toEqual(config)
    expect(Object.isFrozen(config)).toBe(true)
    expect(Object.isFrozen(config.prune)).toBe(true)
    expect(Object.isFrozen(config.contextWindows)).toBe(true)
    expect(DEFAULTS.prune.thresholdChars).toBe(8192)
    const app = new Context()
    await app.plugin(SessionStore)
    await app.plugin(Llm)
    await app.plugin(BasicCompaction)
    expect((app.compaction as BasicCompaction).config).toEqual(config)
    expect(Object.isFrozen((app.compaction as BasicCompaction).config)).toBe(true)
  })

  it('L-055 unknown keys, bad ratios, retention conflicts, a lone summaryModel, maxTokens 0, negative retries, duplicate windows and an oversized head+tail fail naming the path', () => {
    expect(invalid({ auto: true, bogus: 1 })).toBe(message('bogus', 'unknown key'))
    expect(invalid({ thresholdRatio: 0 })).toBe(message('thresholdRatio', 'must be a number in (0, 1]'))
    expect(invalid({ thresholdRatio: 1.2 })).toBe(message('thresholdRatio', 'must be a number in (0, 1]'))
    expect(invalid({ thresholdRatio: 0.5, retainRatio: 0.5 })).toBe(message('retainRatio', 'must be below thresholdRatio (0.5 ≥ 0.5)'))
    expect(invalid({ retainRatio: 0.1, retainTokens: 100 })).toBe(message('retainTokens', 'cannot be combined with retainRatio'))
    expect(invalid({ retainTokens: -1 })).toBe(message('retainTokens', 'must be an integer ≥ 0'))
    expect(invalid({ summaryModel: 'x' })).toBe(message('summaryProvider', 'is required with summaryModel'))
    expect(invalid({ summaryProvider: 'p' })).toBe(message('summaryModel', 'is required with summaryProvider'))
    expect(invalid({ summaryProvider: '', summaryModel: 'm' })).toBe(message('summaryProvider', 'must be a non-empty string'))
    expect(invalid({ maxTokens: 0 })).toBe(message('maxTokens', 'must be an integer ≥ 1'))
    expect(invalid({ compactionRetries: -1 })).toBe(message('compactionRetries', 'must be an integer ≥ 0'))
    expect(invalid({ maxOverflowRetries: 1.5 })).toBe(message('maxOverflowRetries', 'must be an integer ≥ 0'))
    expect(invalid({ contextWindows: [{ provider: 'p', model: 'm', contextWindow: 10 }, { provider: 'p', model: 'm', contextWindow: 20 }] }))
      .toBe(message('contextWindows[1]', 'duplicates p/m of contextWindows[0]'))
    expect(invalid({ contextWindows: [{ provider: 'p', model: 'm', contextWindow: 0 }] }))
      .toBe(message('contextWindows[0].contextWindow', 'must be an integer ≥ 1'))
    expect(invalid({ contextWindows: [{ provider: 'p', model: 'm', contextWindow: 5, size: 1 }] }))
      .toBe(message('contextWindows[0].size', 'unknown key'))
    expect(invalid({ prune: { headChars: 5000, tailChars: 4000 } }))
      .toBe(message('prune', 'headChars + tailChars + 64 must not exceed thresholdChars (5000 + 4000 + 64 > 8192)'))
    expect(invalid({ prune: { enabled: 'yes' } })).toBe(message('prune.enabled', 'must be a boolean'))
    expect(invalid({ prune: { extra: 1 } })).toBe(message('prune.extra', 'unknown key'))
    expect(invalid('auto')).toBe(message('config', 'must be an object'))
    expect(resolveConfig({ retainTokens: 900 })).not.toHaveProperty('retainRatio')
    expect(resolveConfig({ summaryProvider: 'p', summaryModel: 'm' })).toMatchObject({ summaryProvider: 'p', summaryModel: 'm' })
  })

  it('L-055 an invalid config fails the plugin at load with the exact message; nothing is provided', async () => {
    const app = new Context()
    await app.plugin(SessionStore)
    await app.plugin(Llm)
    await expect(app.plugin(BasicCompaction, { maxTokens: 0 } as never)).rejects.toThrow(message('maxTokens', 'must be an integer ≥ 1'))
    expect(app.get('compaction')).toBeUndefined()
  })
})
