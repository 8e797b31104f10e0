/** Seeded randomness for the crash cases: a small PRNG and the seed taken from the environment or minted. */

import { randomInt } from 'node:crypto'

/** A deterministic generator of floats in [0, 1): the same seed yields the same sequence on every platform. */
export interface Random {
  /** The next float in [0, 1). */
  next(): number
  /** An integer in `[min, max]` (both inclusive). */
  int(min: number, max: number): number
  /** One element of a non-empty list. */
  pick<T>(items: readonly T[]): T
  /** A child generator whose sequence depends only on this seed and `label`. */
  fork(label: number): Random
}

/** Build the mulberry32 generator for a 32-bit `seed`; identical seeds give identical sequences. */
export function createRandom(seed: number): Random {
  let state = seed >>> 0
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: (items) => items[Math.floor(next() * items.length)]!,
    fork: (label) => createRandom(Math.imul(seed ^ 0x9e3779b9, 31) + Math.imul(label + 1, 0x85ebca6b)),
  }
}

/**
 * The crash seed: `LOGBOOK_CRASH_SEED` when set (replay), else a fresh random 31-bit integer.
 * @throws TypeError when `LOGBOOK_CRASH_SEED` is not a non-negative safe integer.
 */
export function crashSeed(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env['LOGBOOK_CRASH_SEED']
  if (raw === undefined || raw === '') return randomInt(0, 2 ** 31 - 1)
  const seed = Number(raw)
  if (!Number.isSafeInteger(seed) || seed < 0) throw new TypeError(`LOGBOOK_CRASH_SEED must be a non-negative integer, got ${raw}`)
  return seed
}

/**
 * Iterations of the main kill loop: `LOGBOOK_CRASH_ITERATIONS`, default 20 (spec 02 §9).
 * @throws TypeError when the variable is not a positive safe integer.
 */
export function crashIterations(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env['LOGBOOK_CRASH_ITERATIONS']
  if (raw === undefined || raw === '') return 20
  const n = Number(raw)
  if (!Number.isSafeInteger(n) || n < 1) throw new TypeError(`LOGBOOK_CRASH_ITERATIONS must be a positive integer, got ${raw}`)
  return n
}
