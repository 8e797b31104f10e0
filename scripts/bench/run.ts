/**
 * `pnpm bench [ids…] [--runs N] [--json] [--out file]`: run each selected workload at least 3 times, each run in its
 * own process, and print the median and min–max of its figure, the floor measured in the same run, the ratio
 * figure/floor and the target of `table.ts` with pass/fail. See README.md.
 */

import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { RESULT_MARKER, type RunResult } from './harness.ts'
import { WORKLOADS, type Target, type Workload } from './table.ts'

const here = dirname(fileURLToPath(import.meta.url))
const root = join(here, '..', '..')
const MIN_RUNS = 3

interface Spread { median: number; min: number; max: number }
interface Summary {
  id: string
  title: string
  unit: string
  target: string
  /** The second judged figure's target and verdict (rows with `extraTarget`). */
  extraTarget?: { key: string; max: number; text: string; pass: boolean | null }
  runs: RunResult[]
  figure: Spread
  floor: Spread | null
  ratio: Spread | null
  pass: boolean | null
}

function usage(message?: string): never {
  if (message) process.stderr.write(`bench: ${message}\n`)
  process.stderr.write(`usage: pnpm bench [${WORKLOADS.map(w => w.id).join('|')} …] [--runs N (≥ ${MIN_RUNS})] [--json] [--out file]\n`)
  process.exit(2)
}

/** `B2` selects `B2` itself and its per-backend rows (`B2-jsonl`, `B2-sqlite`); a full row id selects that row. */
function selects(id: string, workload: string): boolean {
  return workload === id || workload.startsWith(`${id}-`)
}

function parseArgs(argv: readonly string[]): { ids: string[]; runs: number; json: boolean; out: string | undefined } {
  const ids: string[] = []
  let runs = MIN_RUNS
  let json = false
  let out: string | undefined
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === '--') continue
    if (arg === '--json') json = true
    else if (arg === '--out') out = argv[++i] ?? usage('--out needs a file')
    else if (arg === '--runs') {
      runs = Number(argv[++i])
      if (!Number.isSafeInteger(runs) || runs < MIN_RUNS) usage(`--runs must be an integer ≥ ${MIN_RUNS}`)
    } else if (arg === '--help' || arg === '-h') usage()
    else if (arg.startsWith('-')) usage(`unknown option ${arg}`)
    else ids.push(arg)
  }
  for (const id of ids) if (!WORKLOADS.some(w => selects(id, w.id))) usage(`unknown workload ${id}`)
  return { ids, runs, json: json || out !== undefined, out }
}

function spread(values: readonly number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  const median = sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
  return { median, min: sorted[0]!, max: sorted.at(-1)! }
}

function runOnce(workload: Workload): RunResult {
  const file = join(here, 'workloads', `${workload.id}.ts`)
  const args = ['--conditions=source', '--import', 'tsx', '--expose-gc', ...(workload.nodeArgs ?? []), file]
  const child = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
  const line = child.stdout?.split('\n').findLast(l => l.startsWith(RESULT_MARKER))
  if (child.status !== 0 || !line) {
    process.stderr.write(child.stdout ?? '')
    process.stderr.write(child.stderr ?? '')
    throw new Error(`workload ${workload.id} failed (exit ${child.status ?? child.signal}) running ${relative(root, file)}`)
  }
  return JSON.parse(line.slice(RESULT_MARKER.length)) as RunResult
}

/** The verdict on a row's second judged figure (`extraTarget`), or null when it has none or no run reported it. */
function judgeExtra(workload: Workload, runs: readonly RunResult[]): boolean | null {
  const t = workload.extraTarget
  if (t === undefined) return null
  const values = runs.map(r => r.extra?.[t.key]).filter((v): v is number => typeof v === 'number')
  return values.length === 0 ? false : spread(values).median <= t.max
}

function judge(target: Target, figure: Spread, ratio: Spread | null): boolean | null {
  switch (target.kind) {
    case 'ratio': return ratio === null ? null : ratio.median <= target.max
    case 'at-most': return figure.median <= target.max
    case 'at-least': return figure.median >= target.min
    case 'report': return null
  }
}

function fmt(value: number): string {
  const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2
  return value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })
}

function print(out: (line: string) => void, s: Summary): void {
  const verdict = s.pass === null ? 'report only' : s.pass ? 'PASS' : 'FAIL'
  out(`${s.id}  ${s.title}`)
  out(`    figure  ${fmt(s.figure.median)} ${s.unit}  (median of ${s.runs.length}; min ${fmt(s.figure.min)}, max ${fmt(s.figure.max)})`)
  if (s.floor) out(`    floor   ${fmt(s.floor.median)} ${s.unit}  (min ${fmt(s.floor.min)}, max ${fmt(s.floor.max)})`)
  if (s.ratio) out(`    ratio   ${s.ratio.median.toFixed(2)} × floor  (min ${s.ratio.min.toFixed(2)}, max ${s.ratio.max.toFixed(2)})`)
  const extras = new Set(s.runs.flatMap(r => Object.keys(r.extra ?? {})))
  for (const key of extras) {
    const values = s.runs.map(r => r.extra?.[key]).filter((v): v is number => typeof v === 'number')
    const e = spread(values)
    out(`    ${key}  ${fmt(e.median)}  (min ${fmt(e.min)}, max ${fmt(e.max)})`)
  }
  out(`    target  ${s.target}  → ${verdict}`)
  if (s.extraTarget) {
    const v = s.extraTarget.pass === null ? 'report only' : s.extraTarget.pass ? 'PASS' : 'FAIL'
    out(`    target  ${s.extraTarget.key} ${s.extraTarget.text}  → ${v}`)
  }
}

function main(): void {
  const { ids, runs, json, out } = parseArgs(process.argv.slice(2))
  const selected = ids.length ? WORKLOADS.filter(w => ids.some(id => selects(id, w.id))) : WORKLOADS
  // With --json on stdout, the human report goes to stderr so stdout stays one JSON document.
  const human = (line: string) => (json && out === undefined ? process.stderr : process.stdout).write(`${line}\n`)
  const summaries: Summary[] = []
  const failed: { id: string; error: string }[] = []
  for (const workload of selected) {
    const results: RunResult[] = []
    try {
      for (let i = 0; i < runs; i++) results.push(runOnce(workload))
    } catch (error) {
      // One broken workload must not hide the others' figures: report it, go on, and exit 1 at the end.
      const message = error instanceof Error ? error.message : String(error)
      failed.push({ id: workload.id, error: message })
      human(`${workload.id}  ${workload.title}\n    FAILED: ${message}`)
      continue
    }
    const figure = spread(results.map(r => r.figure))
    const floors = results.map(r => r.floor).filter((v): v is number => v !== null)
    const ratios = results.map(r => r.ratio).filter((v): v is number => v !== null)
    const floor = floors.length ? spread(floors) : null
    const ratio = ratios.length ? spread(ratios) : null
    const summary: Summary = { id: workload.id, title: workload.title, unit: workload.unit, target: workload.target.text,
      runs: results, figure, floor, ratio, pass: judge(workload.target, figure, ratio) }
    if (workload.extraTarget) summary.extraTarget = { ...workload.extraTarget, pass: judgeExtra(workload, results) }
    summaries.push(summary)
    print(human, summary)
  }
  if (json) {
    const doc = JSON.stringify({ node: process.version, date: new Date().toISOString(), runsPerWorkload: runs, workloads: summaries, failed }, null, 2)
    if (out === undefined) process.stdout.write(`${doc}\n`)
    else writeFileSync(out, `${doc}\n`)
  }
  if (failed.length > 0) process.exitCode = 1
}

main()
