/**
 * Helpers for workload processes: each workload runs once per process and reports one result line on stdout,
 * which `run.ts` collects.
 */

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
