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
  readonly main: MainThreadClocks | undefined
  readonly process: NodeJS.CpuUsage
}

/** This thread's run time and its time waiting on a run queue, in ms. */
interface MainThreadClocks {
  readonly run: number
  readonly wait: number
}

/**
 * This thread's clocks from Linux's per-thread scheduler stats (ns run on a CPU, ns runnable but waiting for one);
 * undefined where they cannot be read.
 */
function mainThreadClocks(): MainThreadClocks | undefined {
  try {
    const [run, wait] = readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')
    return { run: Number(run) / 1e6, wait: Number(wait) / 1e6 }
  } catch {
    return undefined
  }
}

/** Marks the CPU clocks now: the main thread's (where the OS reports them) and the whole process's. */
export function cpuMark(): CpuMark {
  return { main: mainThreadClocks(), process: process.cpuUsage() }
}

/**
 * CPU ms since `mark`: `mainCpuMs` of the main thread alone and `mainWaitMs`, the time it was ready to run but waited
 * for a core (both omitted where the OS does not report them), and `processCpuMs` of every thread (main, GC helpers,
 * background compilers, the libuv pool). On a 2-core machine the wall time of a cold process follows both; the main
 * thread's is the steadier figure when neighbours are busy, and its wait is what the other threads cost it.
 */
export function cpuSpentSince(mark: CpuMark): { mainCpuMs?: number; mainWaitMs?: number; processCpuMs: number } {
  const processCpuMs = cpuSince(mark.process) / 1000
  const main = mainThreadClocks()
  return main === undefined || mark.main === undefined
    ? { processCpuMs }
    : { mainCpuMs: main.run - mark.main.run, mainWaitMs: main.wait - mark.main.wait, processCpuMs }
}
