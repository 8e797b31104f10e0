/**
 * Helpers for workload processes: each workload runs once per process and reports one result line on stdout,
 * which `run.ts` collects.
 */

import { readFileSync } from 'node:fs'

/** The line prefix `run.ts` looks for on a workload's stdout. */
export const RESULT_MARKER = 'BENCH_RESULT '

/** One run's figures. `floor` is in the same unit as `figure`; `ratio` is cost relative to the floor (1 = floor). */
export interface RunResult {
  readonly workload: string
  readonly figure: number
  readonly floor: number | null
  readonly ratio: number | null
  /** Extra figures worth printing (name → value), e.g. elapsed milliseconds. */
  readonly extra?: Readonly<Record<string, number>>
}

/** Print the result line for `run.ts`; call exactly once per process. */
export function report(result: RunResult): void {
  process.stdout.write(`${RESULT_MARKER}${JSON.stringify(result)}\n`)
}

/** Collect garbage when the process runs with `--expose-gc`, so one phase's garbage is not billed to the next. */
export function collectGarbage(): void {
  const gc = (globalThis as { gc?: () => void }).gc
  if (gc) gc()
}

/** Milliseconds taken by `fn` (one call, no warm-up: the workloads measure first-run costs on purpose). */
export function timeMs(fn: () => void): number {
  const start = performance.now()
  fn()
  return performance.now() - start
}

/** Run `fn` with `Date.now` returning the value `clock()` holds at each call, then restore it. */
export function withVirtualClock<T>(clock: () => number, fn: () => T): T {
  const real = Date.now
  Date.now = clock
  try {
    return fn()
  } finally {
    Date.now = real
  }
}

/** User + system CPU µs of the whole process (every thread) since `since`, a `process.cpuUsage()` reading. */
export function cpuSince(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since)
  return used.user + used.system
}

/** A point on the CPU clocks of `cpuSpentSince`. */
export interface CpuMark {
  readonly main: number | undefined
  readonly process: NodeJS.CpuUsage
}

/** CPU ms this thread has run, from Linux's per-thread scheduler stats; undefined where they cannot be read. */
function mainThreadCpuMs(): number | undefined {
  try {
    return Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]) / 1e6
  } catch {
    return undefined
  }
}

/** Marks the CPU clocks now: the main thread's (where the OS reports it) and the whole process's. */
export function cpuMark(): CpuMark {
  return { main: mainThreadCpuMs(), process: process.cpuUsage() }
}

/**
 * CPU ms since `mark`: `mainCpuMs` of the main thread alone (omitted where the OS does not report it) and
 * `processCpuMs` of every thread (main, GC helpers, background compilers, the libuv pool). On a 2-core machine the
 * wall time of a cold process follows both; the main thread's is the steadier figure when neighbours are busy.
 */
export function cpuSpentSince(mark: CpuMark): { mainCpuMs?: number; processCpuMs: number } {
  const processCpuMs = cpuSince(mark.process) / 1000
  const main = mainThreadCpuMs()
  return main === undefined || mark.main === undefined ? { processCpuMs } : { mainCpuMs: main - mark.main, processCpuMs }
}
