/**
 * The `compaction-basic` configuration (spec 03 §2.11): defaults, load-time validation with exact messages, and the
 * frozen resolved value. Validation is hand-written so every failure names its path and reason exactly.
 */

import Schema from '@deepseek-ai/schemastery'
import { deepFreeze } from '@logbook/session'
import { CompactionConfigError } from './errors.ts'

/** A known context window for one provider/model pair. */
export interface ContextWindowEntry {
  readonly provider: string
  readonly model: string
  readonly contextWindow: number
}

/** Tool-result pruning limits, in code points. */
export interface PruneConfig {
  readonly enabled: boolean
  readonly thresholdChars: number
  readonly headChars: number
  readonly tailChars: number
}

/** The resolved, frozen configuration. Exactly one of `retainRatio` and `retainTokens` is present. */
export interface CompactionBasicConfig {
  readonly auto: boolean
  readonly thresholdRatio: number
  readonly retainRatio?: number
  readonly retainTokens?: number
  readonly manualRetainTokens: number
  readonly summaryProvider?: string
  readonly summaryModel?: string
  readonly maxTokens: number
  readonly compactionRetries: number
  readonly maxOverflowRetries: number
  readonly contextWindows: readonly ContextWindowEntry[]
  readonly prune: PruneConfig
}

/** The configuration as written: every key is optional. */
export type CompactionBasicConfigInput = {
  readonly [K in Exclude<keyof CompactionBasicConfig, 'prune'>]?: CompactionBasicConfig[K]
} & { readonly prune?: Partial<PruneConfig> }

/** The documented defaults (§2.11). */
export const DEFAULTS = Object.freeze({
  auto: true,
  thresholdRatio: 0.8,
  retainRatio: 0.2,
  manualRetainTokens: 0,
  maxTokens: 8192,
  compactionRetries: 1,
  maxOverflowRetries: 1,
  prune: Object.freeze({ enabled: true, thresholdChars: 8192, headChars: 4096, tailChars: 1024 }),
})

/** Room reserved for the pruning marker: `headChars + tailChars + 64 ≤ thresholdChars`. */
const MARKER_ROOM = 64

const TOP_KEYS = [
  'auto', 'thresholdRatio', 'retainRatio', 'retainTokens', 'manualRetainTokens', 'summaryProvider', 'summaryModel',
  'maxTokens', 'compactionRetries', 'maxOverflowRetries', 'contextWindows', 'prune',
] as const
const PRUNE_KEYS = ['enabled', 'thresholdChars', 'headChars', 'tailChars'] as const
const WINDOW_KEYS = ['provider', 'model', 'contextWindow'] as const

type Dict = { readonly [key: string]: unknown }

const isDict = (value: unknown): value is Dict =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

function fail(path: string, reason: string): never {
  throw new CompactionConfigError(path, reason)
}

function checkKeys(value: Dict, known: readonly string[], prefix: string): void {
  for (const key of Object.keys(value)) if (!known.includes(key)) fail(`${prefix}${key}`, 'unknown key')
}

function bool(value: unknown, path: string, fallback: boolean): boolean {
  if (value === undefined) return fallback
  return typeof value === 'boolean' ? value : fail(path, 'must be a boolean')
}

function int(value: unknown, path: string, min: number, fallback: number): number
function int(value: unknown, path: string, min: number): number | undefined
function int(value: unknown, path: string, min: number, fallback?: number): number | undefined {
  if (value === undefined) return fallback
  return Number.isSafeInteger(value) && (value as number) >= min ? value as number : fail(path, `must be an integer ≥ ${min}`)
}

function text(value: unknown, path: string): string | undefined {
  if (value === undefined) return undefined
  return typeof value === 'string' && value !== '' ? value : fail(path, 'must be a non-empty string')
}

function ratio(value: unknown, path: string, fallback: number, upperIncluded: boolean): number {
  if (value === undefined) return fallback
  const ok = typeof value === 'number' && Number.isFinite(value)
    && (upperIncluded ? value > 0 && value <= 1 : value >= 0 && value < 1)
  return ok ? value : fail(path, upperIncluded ? 'must be a number in (0, 1]' : 'must be a number in [0, 1)')
}

function contextWindows(value: unknown): ContextWindowEntry[] {
  if (value === undefined) return []
  if (!Array.isArray(value)) fail('contextWindows', 'must be an array')
  const seen = new Map<string, number>()
  return value.map((entry: unknown, index) => {
    const path = `contextWindows[${index}]`
    if (!isDict(entry)) fail(path, 'must be an object')
    checkKeys(entry, WINDOW_KEYS, `${path}.`)
    const provider = text(entry.provider, `${path}.provider`) ?? fail(`${path}.provider`, 'is required')
    const model = text(entry.model, `${path}.model`) ?? fail(`${path}.model`, 'is required')
    const contextWindow = int(entry.contextWindow, `${path}.contextWindow`, 1) ?? fail(`${path}.contextWindow`, 'is required')
    const pair = JSON.stringify([provider, model])
    const earlier = seen.get(pair)
    if (earlier !== undefined) fail(path, `duplicates ${provider}/${model} of contextWindows[${earlier}]`)
    seen.set(pair, index)
    return { provider, model, contextWindow }
  })
}

function prune(value: unknown): PruneConfig {
  if (value === undefined) return DEFAULTS.prune
  if (!isDict(value)) fail('prune', 'must be an object')
  checkKeys(value, PRUNE_KEYS, 'prune.')
  const d = DEFAULTS.prune
  const resolved: PruneConfig = {
    enabled: bool(value.enabled, 'prune.enabled', d.enabled),
    thresholdChars: int(value.thresholdChars, 'prune.thresholdChars', 0, d.thresholdChars),
    headChars: int(value.headChars, 'prune.headChars', 0, d.headChars),
    tailChars: int(value.tailChars, 'prune.tailChars', 0, d.tailChars),
  }
  const { thresholdChars, headChars, tailChars } = resolved
  if (headChars + tailChars + MARKER_ROOM > thresholdChars) {
    fail('prune', `headChars + tailChars + ${MARKER_ROOM} must not exceed thresholdChars `
      + `(${headChars} + ${tailChars} + ${MARKER_ROOM} > ${thresholdChars})`)
  }
  return resolved
}

/**
 * Validate `input` (absent = `{}`) and return the frozen configuration with every default applied.
 * @throws CompactionConfigError `INVALID_CONFIG` naming the first offending path.
 */
export function resolveConfig(input: unknown): CompactionBasicConfig {
  const value = input ?? {}
  if (!isDict(value)) fail('config', 'must be an object')
  checkKeys(value, TOP_KEYS, '')
  const auto = bool(value.auto, 'auto', DEFAULTS.auto)
  const thresholdRatio = ratio(value.thresholdRatio, 'thresholdRatio', DEFAULTS.thresholdRatio, true)
  const retainTokens = int(value.retainTokens, 'retainTokens', 0)
  if (retainTokens !== undefined && value.retainRatio !== undefined) fail('retainTokens', 'cannot be combined with retainRatio')
  const retainRatio = retainTokens === undefined ? ratio(value.retainRatio, 'retainRatio', DEFAULTS.retainRatio, false) : undefined
  if (retainRatio !== undefined && retainRatio >= thresholdRatio) {
    fail('retainRatio', `must be below thresholdRatio (${retainRatio} ≥ ${thresholdRatio})`)
  }
  const manualRetainTokens = int(value.manualRetainTokens, 'manualRetainTokens', 0, DEFAULTS.manualRetainTokens)
  const summaryProvider = text(value.summaryProvider, 'summaryProvider')
  const summaryModel = text(value.summaryModel, 'summaryModel')
  if (summaryProvider !== undefined && summaryModel === undefined) fail('summaryModel', 'is required with summaryProvider')
  if (summaryModel !== undefined && summaryProvider === undefined) fail('summaryProvider', 'is required with summaryModel')
  const config: CompactionBasicConfig = {
    auto,
    thresholdRatio,
    ...(retainRatio === undefined ? {} : { retainRatio }),
    ...(retainTokens === undefined ? {} : { retainTokens }),
    manualRetainTokens,
    ...(summaryProvider === undefined ? {} : { summaryProvider }),
    ...(summaryModel === undefined ? {} : { summaryModel }),
    maxTokens: int(value.maxTokens, 'maxTokens', 1, DEFAULTS.maxTokens),
    compactionRetries: int(value.compactionRetries, 'compactionRetries', 0, DEFAULTS.compactionRetries),
    maxOverflowRetries: int(value.maxOverflowRetries, 'maxOverflowRetries', 0, DEFAULTS.maxOverflowRetries),
    contextWindows: contextWindows(value.contextWindows),
    prune: { ...prune(value.prune) },
  }
  return deepFreeze(config)
}

/**
 * The plugin's `Config`: a schemastery schema whose transform runs `resolveConfig`, so Cordis fails the plugin at
 * load with the `CompactionConfigError` itself (its message unchanged).
 */
export const Config: Schema<CompactionBasicConfigInput | undefined, CompactionBasicConfig> = Schema.transform(
  Schema.any(),
  (value: unknown) => resolveConfig(value),
).description('@logbook/compaction-basic configuration (spec 03 §2.11).') as never
