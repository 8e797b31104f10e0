/**
 * The workload table: one row per implemented workload of docs/benchmarks.md, with the target `pnpm bench` judges
 * today (docs/benchmarks.md lists where it differs from the page's). Adding a workload is one file in
 * `workloads/<id>.ts` plus one row here.
 */

/** How a workload's target is judged. */
export type Target =
  /** The ratio figure/floor (cost relative to the floor) must be at most `max`. */
  | { readonly kind: 'ratio'; readonly max: number; readonly text: string }
  /** The figure itself must be at most `max` (lower is better). */
  | { readonly kind: 'at-most'; readonly max: number; readonly text: string }
  /** The figure itself must be at least `min` (higher is better). */
  | { readonly kind: 'at-least'; readonly min: number; readonly text: string }
  /** Reported only. */
  | { readonly kind: 'report'; readonly text: string }

/** One workload row. */
export interface Workload {
  /** Id as in docs/benchmarks.md; the process runs `workloads/<id>.ts`. */
  readonly id: string
  /** What is timed, one line. */
  readonly title: string
  /** Unit of the figure. */
  readonly unit: string
  /** Whether a higher figure is better (throughput) or a lower one (latency, bytes). */
  readonly better: 'higher' | 'lower'
  readonly target: Target
  /** A second judged figure, with its own verdict line: the median of the extra figure `key` must be at most `max`. */
  readonly extraTarget?: { readonly key: string; readonly max: number; readonly text: string }
  /** Extra node flags for the workload process. */
  readonly nodeArgs?: readonly string[]
}

/** Every implemented workload, in report order. */
export const WORKLOADS: readonly Workload[] = [
  {
    id: 'B1',
    title: 'append all of W to one published in-memory session (one no-op session/event listener)',
    unit: 'events/s',
    better: 'higher',
    target: { kind: 'ratio', max: 1.2, text: '≤ 1.2 × floor (floor: JSON.parse(JSON.stringify(e)) of every event)' },
  },
  {
    id: 'B2-jsonl',
    title: 'cold resume of W from disk in a fresh process (JSONL): open for write, read, repair check, rebuild, publish, derive',
    unit: 'ms',
    better: 'lower',
    target: { kind: 'ratio', max: 2.0, text: '≤ 2.0 × floor (floor: read the stored log and JSON.parse every line/row)' },
  },
  {
    id: 'B2-sqlite',
    title: 'cold resume of W from disk in a fresh process (SQLite): open for write, read, repair check, rebuild, publish, derive',
    unit: 'ms',
    better: 'lower',
    target: { kind: 'ratio', max: 2.0, text: '≤ 2.0 × floor (floor: read the stored log and JSON.parse every line/row)' },
  },
  {
    id: 'B2-postgres',
    title: 'cold resume of W in a fresh process (PostgreSQL, throwaway local server): open for write, read, repair check, rebuild, publish, derive',
    unit: 'ms',
    better: 'lower',
    target: { kind: 'ratio', max: 2.0, text: '≤ 2.0 × floor (floor: read the header and event rows in key order with plain pg and JSON.parse each)' },
  },
  {
    id: 'B3',
    title: 'first fork in the process of the live W session at the turn/end of turn 500',
    unit: 'ms',
    better: 'lower',
    target: { kind: 'at-most', max: 10, text: '≤ 10 ms' },
  },
  {
    id: 'B4-jsonl',
    title: 'write W durably through the real plugins (JSONL), 3 awaited flushes per turn: per-flush median',
    unit: 'µs',
    better: 'lower',
    target: { kind: 'ratio', max: 1.3, text: '≤ 1.3 × floor (per-flush median; floor: the same bytes on a raw fd, one fdatasync per flush, plus the in-memory appends)' },
    extraTarget: { key: 'plugin CPU µs/flush', max: 40, text: '≤ 40 µs (CPU of the durable run beyond the raw and in-memory runs, per flush)' },
  },
  {
    id: 'B4-sqlite',
    title: 'write W durably through the real plugins (SQLite), 3 awaited flushes per turn: per-flush median',
    unit: 'µs',
    better: 'lower',
    target: { kind: 'ratio', max: 1.3, text: '≤ 1.3 × floor (per-flush median; floor: the same bytes on a raw fd, one fdatasync per flush, plus the in-memory appends)' },
    extraTarget: { key: 'plugin CPU µs/flush', max: 40, text: '≤ 40 µs (CPU of the durable run beyond the raw and in-memory runs, per flush)' },
  },
  {
    id: 'B4-postgres',
    title: 'write W durably through the real plugins (PostgreSQL, throwaway local server), 3 awaited flushes per turn: per-flush median',
    unit: 'µs',
    better: 'lower',
    target: { kind: 'ratio', max: 1.5, text: '≤ 1.5 × floor (per-flush median; floor: the same rows inserted with plain pg, one commit per flush, plus the in-memory appends)' },
    extraTarget: { key: 'plugin CPU µs/flush', max: 40, text: '≤ 40 µs (this process\'s CPU beyond the plain-pg and in-memory runs, per flush)' },
  },
  {
    id: 'B5-jsonl',
    title: 'bytes on disk per event after writing W as B4 does (JSONL)',
    unit: 'B/event',
    better: 'lower',
    target: { kind: 'at-most', max: 66, text: '≤ 66 B/event, a checksum on every record' },
  },
  {
    id: 'B5-sqlite',
    title: 'bytes on disk per event after writing W as B4 does (SQLite)',
    unit: 'B/event',
    better: 'lower',
    target: { kind: 'at-most', max: 82, text: '≤ 82 B/event, a checksum on every record' },
  },
  {
    id: 'B5-postgres',
    title: 'bytes in the database per event after writing W as B4 does (PostgreSQL: heap, TOAST and indexes)',
    unit: 'B/event',
    better: 'lower',
    target: { kind: 'report', text: 'reported' },
  },
  {
    id: 'B6-jsonl',
    title: 'full scripted agent loop over W-shaped turns (JSONL, checkpoint policy: 5 awaited flushes per turn)',
    unit: 'events/s',
    better: 'higher',
    target: { kind: 'report', text: 'report events/s and the share of time in persistence (floor: the B1 figure of the same run)' },
  },
  {
    id: 'B6-sqlite',
    title: 'full scripted agent loop over W-shaped turns (SQLite, checkpoint policy: 5 awaited flushes per turn)',
    unit: 'events/s',
    better: 'higher',
    target: { kind: 'report', text: 'report events/s and the share of time in persistence (floor: the B1 figure of the same run)' },
  },
  {
    id: 'B7',
    title: 'rebuild the built-in projections (stats, todos, title) over W, then one snapshot',
    unit: 'ms',
    better: 'lower',
    target: { kind: 'at-most', max: 50, text: '≤ 50 ms (floor, for the ratio: iterate the events)' },
  },
  {
    id: 'B8',
    title: 'one compaction region over a 10,000-node surface (scripted summariser), excluding the summariser',
    unit: 'ms',
    better: 'lower',
    target: { kind: 'at-most', max: 50, text: '≤ 50 ms excluding the summariser' },
  },
  {
    id: 'B9-jsonl-page',
    title: 'list 1,000 stored sessions (JSONL): first page of 50',
    unit: 'ms',
    better: 'lower',
    target: { kind: 'ratio', max: 1.5, text: '≤ 1.5 × floor (floor: read the header and the last 4 KiB of each session)' },
  },
  {
    id: 'B9-jsonl-walk',
    title: 'list 1,000 stored sessions (JSONL): full walk of every page',
    unit: 'ms',
    better: 'lower',
    target: { kind: 'ratio', max: 2, text: '≤ 2 × floor (floor: read the header and the last 4 KiB of each session)' },
  },
  {
    id: 'B9-sqlite-page',
    title: 'list 1,000 stored sessions (SQLite): first page of 50',
    unit: 'ms',
    better: 'lower',
    target: { kind: 'ratio', max: 1.5, text: '≤ 1.5 × floor (floor: read the header and the last 4 KiB of each session)' },
  },
  {
    id: 'B9-sqlite-walk',
    title: 'list 1,000 stored sessions (SQLite): full walk of every page',
    unit: 'ms',
    better: 'lower',
    target: { kind: 'ratio', max: 2, text: '≤ 2 × floor (floor: read the header and the last 4 KiB of each session)' },
  },
  {
    id: 'B9-postgres-page',
    title: 'list 1,000 stored sessions (PostgreSQL): first page of 50',
    unit: 'ms',
    better: 'lower',
    target: { kind: 'ratio', max: 1.5, text: '≤ 1.5 × floor (floor: read each session\'s header row and last record)' },
  },
  {
    id: 'B9-postgres-walk',
    title: 'list 1,000 stored sessions (PostgreSQL): full walk of every page',
    unit: 'ms',
    better: 'lower',
    target: { kind: 'ratio', max: 2, text: '≤ 2 × floor (floor: read each session\'s header row and last record)' },
  },
  {
    id: 'S1',
    title: 'build the full-text index over W from its JSONL store (reindex: read back, fold, both FTS5 indexes)',
    unit: 'ms',
    better: 'lower',
    target: { kind: 'at-most', max: 2000, text: '≤ 2 s' },
  },
  {
    id: 'S2',
    title: 'one search query over 1,000 stored sessions (JSONL), first query of a process whose index has caught up',
    unit: 'ms',
    better: 'lower',
    target: { kind: 'at-most', max: 50, text: '≤ 50 ms median' },
  },
  {
    id: 'B10-jsonl',
    title: 'cold resume of 10 × W (1,110,000 events) in a fresh process (JSONL), per restored event',
    unit: 'µs/event',
    better: 'lower',
    target: { kind: 'ratio', max: 1.15, text: '≤ 1.15 × floor (floor: the per-event time of the same run\'s resume of W)' },
    extraTarget: { key: 'RSS per event / W', max: 1.15, text: '≤ 1.15 (peak RSS above baseline per event, over the same figure for W: M\'s)' },
  },
  {
    id: 'B10-sqlite',
    title: 'cold resume of 10 × W (1,110,000 events) in a fresh process (SQLite), per restored event',
    unit: 'µs/event',
    better: 'lower',
    target: { kind: 'ratio', max: 1.15, text: '≤ 1.15 × floor (floor: the per-event time of the same run\'s resume of W)' },
    extraTarget: { key: 'RSS per event / W', max: 1.15, text: '≤ 1.15 (peak RSS above baseline per event, over the same figure for W: M\'s)' },
  },
  {
    id: 'B10-steps',
    title: 'append, surface, derived messages, projections, fork, compaction selection and region at 10 × W and at W, each cold in a fresh process: the worst step\'s time per unit at 10 × W over W\'s',
    unit: '×',
    better: 'lower',
    target: { kind: 'at-most', max: 1.5, text: '≤ 1.5 (no step grows faster than linearly: any step of n^1.18 or worse exceeds it, a quadratic one gives about 10)' },
  },
  {
    id: 'B11-sqlite',
    title: '64 live sessions in one process written concurrently (SQLite), each its share of W with 3 awaited flushes per turn: aggregate durable events/s',
    unit: 'events/s',
    better: 'higher',
    target: { kind: 'ratio', max: 1 / 3, text: '≥ 3 × floor, i.e. ratio ≤ 0.33 (floor: the single-session B4 rate of the same run)' },
    extraTarget: { key: 'commits per flush round', max: 1, text: '≤ 1 (write transactions while timed over flush rounds: group commit)' },
  },
  {
    id: 'B11-jsonl',
    title: '64 live sessions in one process written concurrently (JSONL), each its share of W with 3 awaited flushes per turn: p99 flush latency',
    unit: 'ms',
    better: 'lower',
    target: { kind: 'ratio', max: 5, text: '≤ 5 × floor (floor: the single-session B4 p99 flush latency of the same run); aggregate events/s reported' },
  },
  {
    id: 'B12-jsonl-page',
    title: 'list 10,000 stored sessions (JSONL): first page of 50',
    unit: 'ms',
    better: 'lower',
    target: { kind: 'ratio', max: 1.5, text: '≤ 1.5 × floor (floor: read the header and the last 4 KiB of each session)' },
  },
  {
    id: 'B12-jsonl-walk',
    title: 'list 10,000 stored sessions (JSONL): full walk of every page',
    unit: 'ms',
    better: 'lower',
    target: { kind: 'ratio', max: 2, text: '≤ 2 × floor (floor: read the header and the last 4 KiB of each session)' },
  },
  {
    id: 'B12-sqlite-page',
    title: 'list 10,000 stored sessions (SQLite): first page of 50',
    unit: 'ms',
    better: 'lower',
    target: { kind: 'ratio', max: 1.5, text: '≤ 1.5 × floor (floor: read the header and the last 4 KiB of each session)' },
  },
  {
    id: 'B12-sqlite-walk',
    title: 'list 10,000 stored sessions (SQLite): full walk of every page',
    unit: 'ms',
    better: 'lower',
    target: { kind: 'ratio', max: 2, text: '≤ 2 × floor (floor: read the header and the last 4 KiB of each session)' },
  },
  {
    id: 'B12-postgres-page',
    title: 'list 10,000 stored sessions (PostgreSQL): first page of 50',
    unit: 'ms',
    better: 'lower',
    target: { kind: 'ratio', max: 1.5, text: '≤ 1.5 × floor (floor: read each session\'s header row and last record)' },
  },
  {
    id: 'B12-postgres-walk',
    title: 'list 10,000 stored sessions (PostgreSQL): full walk of every page',
    unit: 'ms',
    better: 'lower',
    target: { kind: 'ratio', max: 2, text: '≤ 2 × floor (floor: read each session\'s header row and last record)' },
  },
  {
    id: 'B12-search',
    title: 'one search query over 10,000 stored sessions (JSONL), first query of a process whose index has caught up',
    unit: 'ms',
    better: 'lower',
    target: { kind: 'at-most', max: 50, text: '≤ 50 ms median' },
  },
  {
    id: 'M-jsonl',
    title: 'peak RSS of a restore-only process doing B2 (JSONL)',
    unit: 'MB',
    better: 'lower',
    target: { kind: 'ratio', max: 1.3, text: '≤ 1.3 × baseline (RSS of that process after all imports)' },
  },
  {
    id: 'M-sqlite',
    title: 'peak RSS of a restore-only process doing B2 (SQLite)',
    unit: 'MB',
    better: 'lower',
    target: { kind: 'ratio', max: 1.3, text: '≤ 1.3 × baseline (RSS of that process after all imports)' },
  },
  {
    id: 'V1',
    title: "the viewer's first paint of W's session page in headless Chromium (cold session cache, last page of 50 turns)",
    unit: 'ms',
    better: 'lower',
    target: { kind: 'at-most', max: 1000, text: '≤ 1 s from the navigation to the first contentful paint' },
  },
]
