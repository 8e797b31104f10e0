/**
 * The child-process protocol of the [xp] and [kill] cases. The parent forks `worker/child.ts` with
 * `node --conditions=source --import tsx` and an IPC channel, sends one `WorkerInit`, then requests; the child answers
 * every request with one `WorkerReply` and may send `WorkerNotice`s at any time. Every message is JSON-serialisable.
 */

/** First message: which backend to mount, with which config, and which plugin event types to register. */
export interface WorkerInit {
  readonly kind: 'init'
  /** Absolute path or `file:` URL of a module whose default export is the backend plugin (`WorkerSpec.module`). */
  readonly module: string
  readonly config: Readonly<Record<string, unknown>>
  /** Plugin event types registered on the child's `ctx.sessions` (e.g. `compaction/start`). */
  readonly eventTypes: readonly string[]
}

/** One live append: `session.append(type, data, opts)`. */
export interface LiveAppend {
  readonly type: string
  readonly data: unknown
  readonly opts?: Readonly<Record<string, unknown>>
}

/** Plan of one crash-loop process (see `crash/script.ts`). */
export interface CrashPlan {
  readonly id: string
  /** Seed of this process's script (derived from the run seed and the process index). */
  readonly seed: number
  /** `'mixed'`: small events, tool gaps and compaction brackets; `'big'`: 64 KiB chunks, 50 per flushed batch. */
  readonly mode: 'mixed' | 'big'
  /** Header meta of a new session (first process only; later ones resume). */
  readonly cwd: string
  /** Upper bound of generated events; the child then idles until killed. */
  readonly maxEvents: number
}

/** Requests the parent sends; `reqId` pairs a reply with its request. */
export type WorkerRequest = { readonly reqId: number } & (
  /** `open(id, 'write')`; the handle stays open in the child. Replies `{ nextSeq, revision }`. */
  | { readonly op: 'open-write'; readonly id: string }
  /** `handle.append(events)` on the open handle. Replies `{ nextSeq, revision }`. */
  | { readonly op: 'append'; readonly id: string; readonly events: readonly unknown[] }
  /** `handle.close()`. */
  | { readonly op: 'close'; readonly id: string }
  /** `sessions.create(id, { meta: { cwd } })`, the appends, then (if `flush`) `sessions.flush`. Replies `{ seq }`. */
  | { readonly op: 'live-create'; readonly id: string; readonly cwd: string; readonly appends: readonly LiveAppend[]; readonly flush: boolean }
  /** Appends to the live session `id`, then (if `flush`) flushes it. Replies `{ seq }`. */
  | { readonly op: 'live-append'; readonly id: string; readonly appends: readonly LiveAppend[]; readonly flush: boolean }
  /** `rounds` × (open write with retry on SESSION_LOCKED, append one complete turn, close). Replies `{ turns }`. */
  | { readonly op: 'rounds'; readonly id: string; readonly rounds: number }
  /** Resume or create `plan.id`, then run the crash script; replies only on failure (the parent kills it). */
  | { readonly op: 'crash-run'; readonly plan: CrashPlan }
  /** Dispose the app (flushing live sessions, releasing locks); replies once done. */
  | { readonly op: 'dispose' }
)

/** A persistence or core error carried over IPC. */
export interface WireError {
  readonly name: string
  readonly message: string
  readonly code?: string
  readonly details?: unknown
}

/** The answer to one request. */
export type WorkerReply =
  | { readonly kind: 'reply'; readonly reqId: number; readonly ok: true; readonly value: unknown }
  | { readonly kind: 'reply'; readonly reqId: number; readonly ok: false; readonly error: WireError }

/** Unsolicited progress reports. */
export type WorkerNotice =
  /** The backend is mounted; `pid` is the child's pid. */
  | { readonly kind: 'ready'; readonly pid: number }
  /** Crash run: resumed (or created) the session; `closers` were appended at `closersFrom`; the script starts at `scriptFrom`. */
  | { readonly kind: 'resumed'; readonly closersFrom: number; readonly closers: readonly unknown[]; readonly scriptFrom: number; readonly firstTurn: number }
  /** Crash run: a flush resolved; every event with a seq below `seq` is durable. */
  | { readonly kind: 'ack'; readonly seq: number }
  /** Crash run: a kill point of the script was reached (`name`), with `seq` = `session.seq` at that point. */
  | { readonly kind: 'mark'; readonly name: string; readonly seq: number; readonly callId?: string }
  /** Crash run: the script is exhausted; the child idles until killed. */
  | { readonly kind: 'done'; readonly seq: number }

/** Any message the child sends. */
export type WorkerMessage = WorkerReply | WorkerNotice
