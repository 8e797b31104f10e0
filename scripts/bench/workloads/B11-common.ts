/**
 * B11: many live sessions in one process. 64 sessions live in one Cordis app with one backend instance, written
 * concurrently: W's 1,000 turns are shared out (16 turns to each of the first 40 sessions, 15 to the others, each
 * session its own W-shaped turns from its own seed), and every session is one async writer appending its turns and
 * awaiting `sessions.flush` at B4's checkpoint points (after each `step/start` and `tool/call`, plus a final one).
 * The writers interleave on one event loop: while one awaits its flush the others keep appending.
 *
 * Each measurement runs in a fresh process (`B11-child.ts`), in this order: the single-session reference (all of W in
 * one session, B4's workload), the 64 sessions, and the ceiling (the same 64 sessions' appends and flush calls with no
 * persistence plugin). Leases and bindings are taken before the clock starts, in every run alike.
 *
 * A **flush round** is the set of flushes called while the store's commit count stands at one value: the flushes
 * issued after one commit and before the next, i.e. those pending together when the backend starts its next commit.
 * Commits per flush round = write transactions committed while timed / rounds; 1.00 means every round was carried by
 * one commit (group commit), N means N commits were needed for the flushes that were waiting together.
 *
 * Beside the p99 of every flush, each row reports the p99 of each session's flushes after its first two and the median
 * of each session's first flush: 64 sessions make their first writes in the same two rounds, on code the process has
 * not run yet, so those rounds are 4 % of the flushes and can set the p99 by themselves.
 */

import type SessionStore from '@logbook/session'
import { SessionId, type Session } from '@logbook/session'
import { collectGarbage, report } from '../harness.ts'
import { W_TURNS, wAppendList, type WAppend } from '../session-w.ts'
import { runChild, tempStore, type BackendKind } from './persistence-store.ts'

/** Sessions of B11. */
export const B11_SESSIONS = 64

/** What one measurement process reports. */
export interface B11Run {
  readonly ms: number
  readonly events: number
  readonly flushes: number
  readonly p50: number
  readonly p99: number
  /** The p99 of every session's flushes after its first two (the warm-up rounds: first writes and cold code). */
  readonly steadyP99: number
  /** The median of every session's first flush (the round that creates its file or first rows). */
  readonly firstP50: number
  /** Write transactions committed while timed, and flush rounds (SQLite only; `null` elsewhere). */
  readonly commits: number | null
  readonly rounds: number | null
}

type LooseAppend = (type: string, data: unknown, opts?: unknown) => unknown

/** W's turns shared out over `count` sessions: each session's append inputs (session 0 starts with W's own seed). */
export function shareOfW(count: number): WAppend[][] {
  const base = Math.floor(W_TURNS / count)
  const extra = W_TURNS % count
  return Array.from({ length: count }, (_, i) => wAppendList({ turns: base + (i < extra ? 1 : 0), seed: 0x5eed + i }))
}

/** The value at quantile `q` of `values` (nearest rank). */
function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] ?? 0
}

/**
 * Creates one session per input list, binds them (a flush with nothing pending waits for the binding), then times
 * the concurrent writers. `commits` reads the store's commit count (SQLite), else returns `null`.
 */
export async function writeConcurrently(sessions: SessionStore, inputs: readonly WAppend[][], commits: () => number | null): Promise<B11Run> {
  const realNow = Date.now
  let now = inputs[0]?.[0]?.time ?? 0
  Date.now = () => now
  try {
    const live = inputs.map((list, i) => {
      now = list[0]?.time ?? now
      return sessions.create(SessionId(`b11-${i}`), { meta: { cwd: '/bench/w' } })
    })
    await Promise.all(live.map(session => sessions.flush(session)))
    const latencies: number[] = []
    const steady: number[] = []
    const firsts: number[] = []
    const rounds = new Set<number | null>()
    const writer = async (session: Session, list: readonly WAppend[]): Promise<void> => {
      const append = session.append.bind(session) as LooseAppend
      let flushes = 0
      const flush = async (): Promise<void> => {
        rounds.add(commits())
        const start = performance.now()
        await sessions.flush(session)
        const ms = performance.now() - start
        latencies.push(ms)
        if (flushes === 0) firsts.push(ms)
        else if (flushes >= 2) steady.push(ms)
        flushes++
      }
      for (const input of list) {
        now = input.time
        if (input.opts) append(input.type, input.data, input.opts)
        else append(input.type, input.data)
        if (input.type === 'step/start' || input.type === 'tool/call') await flush()
      }
      await flush()
    }
    collectGarbage()
    const commitsBefore = commits()
    const start = performance.now()
    await Promise.all(live.map((session, i) => writer(session, inputs[i]!)))
    const ms = performance.now() - start
    const commitsAfter = commits()
    const events = live.reduce((sum, session) => sum + session.seq, 0)
    const expected = inputs.reduce((sum, list) => sum + list.length, 0)
    if (events !== expected) throw new Error(`B11: the sessions hold ${events} events, expected ${expected}`)
    for (const values of [latencies, steady, firsts]) values.sort((a, b) => a - b)
    const timedCommits = commitsAfter === null || commitsBefore === null ? null : commitsAfter - commitsBefore
    return {
      ms, events, flushes: latencies.length, p50: quantile(latencies, 0.5), p99: quantile(latencies, 0.99),
      steadyP99: quantile(steady, 0.99), firstP50: quantile(firsts, 0.5),
      commits: timedCommits, rounds: timedCommits === null ? null : rounds.size,
    }
  } finally {
    Date.now = realNow
  }
}

/** One measurement in a fresh process: `durable` with `sessions` sessions on `kind`, or `memory` (no persistence). */
function measure(mode: 'durable' | 'memory', kind: BackendKind, sessions: number): B11Run {
  const fixture = tempStore(`b11-${kind}-${mode}-${sessions}`)
  try {
    return JSON.parse(runChild('B11-child.ts', [mode, kind, fixture.dir, String(sessions)], `B11 ${mode} ${kind} ${sessions}`)) as B11Run
  } finally {
    fixture.remove()
  }
}

const rate = (run: B11Run): number => run.events / (run.ms / 1000)

/**
 * Runs B11 for `kind` and reports the row `B11-<kind>`. SQLite: figure = aggregate durable events/s, floor = the
 * single-session (B4) rate of the same run, ratio = floor rate / figure rate (≤ 1/3 ⇔ ≥ 3 × B4). JSONL: figure = p99
 * flush latency of the 64 sessions, floor = the single session's p99, ratio = their quotient.
 */
export function runB11(kind: 'sqlite' | 'jsonl'): void {
  const single = measure('durable', kind, 1)
  const many = measure('durable', kind, B11_SESSIONS)
  const memory = measure('memory', kind, B11_SESSIONS)
  const extra: Record<string, number> = {
    'aggregate events/s': rate(many),
    'single-session (B4) events/s': rate(single),
    'aggregate / B4 rate': rate(many) / rate(single),
    'in-memory ceiling events/s': rate(memory),
    'aggregate / ceiling': rate(many) / rate(memory),
    'flushes': many.flushes,
    'p50 flush ms': many.p50,
    'p99 flush ms': many.p99,
    'B4 p50 flush ms': single.p50,
    'B4 p99 flush ms': single.p99,
    'p99 / B4 p99': many.p99 / single.p99,
    'p99 after each session\'s first two flushes ms': many.steadyP99,
    'that p99 / B4 p99 (after its first two flushes)': many.steadyP99 / single.steadyP99,
    'first flush of each session, median ms': many.firstP50,
  }
  if (many.commits !== null && many.rounds !== null) {
    extra['commits'] = many.commits
    extra['flush rounds'] = many.rounds
    extra['commits per flush round'] = many.commits / many.rounds
    extra['flushes per commit'] = many.flushes / many.commits
    if (single.commits !== null) extra['B4 commits'] = single.commits
  }
  if (kind === 'sqlite') {
    report({ workload: 'B11-sqlite', figure: rate(many), floor: rate(single), ratio: rate(single) / rate(many), extra })
  } else {
    report({ workload: 'B11-jsonl', figure: many.p99, floor: single.p99, ratio: many.p99 / single.p99, extra })
  }
}
