/**
 * Config schemas (spec 02 §1.5). Defaults are declared here once. Backends build their schema from
 * `persistenceConfigFields()` plus their own keys and wrap it with `withRetryBounds` (the cross-field rule).
 */
import Schema from '@deepseek-ai/schemastery'
import type { MemorySessionPersistenceConfig, SessionPersistenceConfig } from './types.ts'

/** The fields every backend accepts, with their documented defaults (02 §1.5). */
export function persistenceConfigFields() {
  return {
    writeBatchMaxDelayMs: Schema.natural().min(1).max(60_000).default(200)
      .description('Write-behind window: the most a live event waits before its batch is written (ms).'),
    retryInitialDelayMs: Schema.natural().min(10).max(60_000).default(1000)
      .description('Delay before the first retry of a failed background write (ms); doubles per failure.'),
    retryMaxDelayMs: Schema.natural().min(10).max(600_000).default(30_000)
      .description('Cap of the retry delay (ms); at least retryInitialDelayMs.'),
    packChunks: Schema.boolean().default(true)
      .description('Pack runs of streaming chunk events into one record.'),
  }
}

/**
 * Wrap an object schema so `retryMaxDelayMs ≥ retryInitialDelayMs` is enforced; a violation is a schemastery
 * `ValidationError`, which Cordis reports as its config `ValidationError`.
 */
export function withRetryBounds<S, T extends SessionPersistenceConfig>(schema: Schema<S, T>): Schema<S, T> {
  return Schema.transform(schema, (input: S) => {
    const value = input as unknown as T
    if (value.retryMaxDelayMs < value.retryInitialDelayMs) {
      throw new Schema.ValidationError(
        `must be at least retryInitialDelayMs (${value.retryInitialDelayMs}), got ${value.retryMaxDelayMs}`,
        { path: ['retryMaxDelayMs'] },
      )
    }
    return value
    // `.default({})`: without it schemastery passes an absent config through the transform as `undefined`,
    // so a backend loaded with no config (a bare `cordis.yml` row) would see no defaults at all.
  }, true).default({} as S) as unknown as Schema<S, T>
}

/** The shared config alone (a backend without own keys can use it as is). */
export const SessionPersistenceConfigSchema: Schema<Partial<SessionPersistenceConfig>, SessionPersistenceConfig> =
  withRetryBounds(Schema.object(persistenceConfigFields()) as unknown as Schema<Partial<SessionPersistenceConfig>, SessionPersistenceConfig>)

/** Config of `MemorySessionPersistence`: the shared fields plus `storeName`. */
export const MemoryConfigSchema: Schema<Partial<MemorySessionPersistenceConfig>, MemorySessionPersistenceConfig> =
  withRetryBounds(Schema.object({
    ...persistenceConfigFields(),
    storeName: Schema.string().description('Same-named instances in one process share storage.'),
  }) as unknown as Schema<Partial<MemorySessionPersistenceConfig>, MemorySessionPersistenceConfig>)
