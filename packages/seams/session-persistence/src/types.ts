/**
 * Public API types of the persistence seam (spec 02 §1.1–§1.3, §1.6, §1.8). Types only.
 */
import type { JsonValue, SessionEvent, SessionHeader, SessionSeedEventState } from '@logbook/session'
import type { SessionPersistenceError } from './errors.ts'

/** Options every public method accepts (02 §1.1). */
export interface OperationOptions {
  /** Aborted at call time → reject with exactly `signal.reason` before any I/O; mid-way → after releasing. */
  readonly signal?: AbortSignal
}

/** `open` modes: `'write'` takes claim and lock and repairs a torn tail; `'read'` takes nothing, writes nothing. */
export type OpenMode = 'read' | 'write'

/**
 * Where a backend keeps its store on this machine (02 §1.1 `storeLocation`): the JSONL root
 * folder, or the SQLite database file. Plugins that keep files beside the store (the search index) derive their
 * paths from it; a backend without a local location (memory, `:memory:`, a database server) has none.
 */
export interface StoreLocation {
  readonly kind: 'directory' | 'file'
  /** Absolute path. */
  readonly path: string
}

/** What the backend can do (02 §1.1). */
export interface PersistenceCapabilities {
  /** Locks exclude other processes (JSONL lock file, SQLite lease). */
  readonly crossProcess: boolean
  /** Acknowledged events survive a process crash. */
  readonly durable: boolean
  /** `locate(id)` can return a path. */
  readonly locate: boolean
}

/** The torn tail `open` cut (write) or ignored (read), or `inspect` detected (02 §1.2, §4.1). */
export interface TornTailReport {
  /** Seq of the first event that is not part of the valid prefix (= the valid prefix's length). */
  readonly fromSeq: number
  /** Records dropped: always 1, the incomplete last record (any other defect is corruption, §4.1). */
  readonly droppedRecords: number
  /** Events the dropped record covers: decoded ones, or as store metadata counts them (0 when unknown). */
  readonly droppedEvents: number
  /** Why the last record is not valid. */
  readonly detail: string
}

/** `handle.recovery` (02 §1.2). */
export type RecoveryReport = { readonly tornTail: TornTailReport } | null

/** Result of a successful append (02 §1.2). */
export interface AppendResult {
  readonly nextSeq: number
  /** `null` only for `append([])` on a `create` handle before its first append. */
  readonly revision: string | null
}

/** A handle on one stored session (02 §1.2). */
export interface SessionHandle extends AsyncDisposable {
  readonly id: string
  readonly mode: OpenMode
  /** Deep-frozen stored header. */
  readonly header: SessionHeader
  /** Write: the durable cursor. Read: as observed by the last `open`/`read`. */
  readonly nextSeq: number
  /** Last observed or produced revision; `null` only on a `create` handle before its first append. */
  readonly revision: string | null
  /** `header.seedLength` when `header.isSeeded`, else 0. */
  readonly inheritedEventCount: number
  /** How `read` results may be handed to `sessions.prepare` (D6, D7). */
  readonly eventState: SessionSeedEventState
  /** The torn tail `open` cut (write) or ignored (read). */
  readonly recovery: RecoveryReport
  /**
   * Valid stored events from `fromSeq`, as a read-only array view whose packed chunk members are built when read (so
   * handing it to `sessions.prepare` keeps them packed); a write handle's first call hands over `open`'s decoded events.
   * @throws `INVALID_ARGUMENT`, `SESSION_CONFLICT` (id deleted or re-created), `SESSION_HANDLE_CLOSED`.
   */
  read(fromSeq?: number, opts?: OperationOptions): Promise<readonly SessionEvent[]>
  /**
   * Stores `events` durably at `nextSeq`; serialised before the first await; concurrent calls run in call order.
   * @throws `HANDLE_READ_ONLY`, `INVALID_ARGUMENT`, `SESSION_CONFLICT`, `SESSION_LOCKED`, `STORE_IO`.
   */
  append(events: readonly SessionEvent[], opts?: OperationOptions): Promise<AppendResult>
  /** Lets the next binding of this id in this process adopt the handle (§2.1 case 1). @throws `HANDLE_READ_ONLY`. */
  handOff(): void
  /** Idempotent: waits for in-flight appends, releases claim and lock. */
  close(): Promise<void>
}

/** Filters and paging of `list` (02 §1.3). */
export interface ListQuery {
  /** Exactly equal to `header.cwd`. */
  readonly cwd?: string
  /** Children of that id, or (`null`) sessions without parent. */
  readonly parentSession?: string | null
  /** Strictly later `updatedAt`. */
  readonly updatedAfter?: number
  /** Integer 1–500, default 50. */
  readonly limit?: number
  /** `nextCursor` of the previous page, with the same filters. */
  readonly cursor?: string
}

/** One stored session in a listing (02 §1.3). */
export interface SessionSummary {
  readonly id: string
  readonly header: SessionHeader
  /** Last stored seq + 1 (0 when cut down to the header). */
  readonly eventCount: number
  /** `time` of the last stored event, or `header.createdAt` with none. */
  readonly updatedAt: number
  /** Equal to `inspect(id).revision`. */
  readonly revision: string
  readonly location?: string
}

/** A listing entry that could not be summarised (first page only). */
export interface ListProblem {
  readonly location: string
  readonly sessionId?: string
  readonly error: SessionPersistenceError | Error
}

/** One page of `list` (02 §1.3). */
export interface ListPage {
  readonly items: SessionSummary[]
  readonly nextCursor: string | null
  readonly problems: ListProblem[]
}

/** `inspect(id).claim`: claimed by this coordinator / locked by anyone else / neither. */
export type ClaimState = 'none' | 'this-process' | 'other-process'

/** Stored view of a session plus what a resume would append; commits nothing (02 §1.3). */
export interface SessionInspection {
  readonly header: SessionHeader
  /** Deep-frozen valid stored events (torn tail excluded). */
  readonly events: readonly SessionEvent[]
  readonly inheritedEventCount: number
  readonly revision: string
  /** Detected, not cut. */
  readonly tornTail: TornTailReport | null
  /** The open turn's number, or `null`. */
  readonly openTurn: number | null
  /** What a resume would append: `openTurnClosers(events, { kind: 'interrupted' })` when `claim` is `none`, else `[]`. */
  readonly closers: readonly SessionEvent[]
  readonly claim: ClaimState
  /**
   * True when the header and every record carry a checksum, each verified by this read (the current store format);
   * false for a session of the older store format (`migrate` adds them).
   */
  readonly checksums: boolean
  readonly location?: string
}

/** The exact confirmation `delete` requires (02 §1.1). */
export interface DeleteConfirmation {
  readonly confirm: 'delete-session'
  readonly sessionId: string
  readonly revision: string
}

/** What `delete` resolves to. */
export interface DeleteResult {
  readonly sessionId: string
  readonly location?: string
}

/** What `repair` is asked (02 §4.7): cut at the first defect, or at the earlier record boundary `cutAt`. */
export interface RepairRequest {
  /** Cut here instead: the first seq of a valid record at or before the first defect. */
  readonly cutAt?: number
  /** Without it `repair` only plans; with it, it keeps a backup and cuts. */
  readonly confirm?: 'cut-records'
}

/** One record a repair cuts, as the scan found it. */
export interface RepairRecord {
  /** 1-based JSONL line (the header is line 1), where the store has lines. */
  readonly line?: number
  /** The first seq the record holds, when it decodes. */
  readonly seq?: number
  /** The events it holds (decoded, or as store metadata counts them); `null` when that cannot be known. */
  readonly events: number | null
  /** Why the record itself fails (checksum, parse, decode), when it does. */
  readonly problem?: string
}

/** What `repair` found and did (02 §4.7). */
export interface RepairResult {
  readonly sessionId: string
  /** The first defect (line, seq, detail), or `null` for a clean log. */
  readonly defect: { readonly seq: number; readonly line?: number; readonly detail: string } | null
  /** The seq the cut starts at (the new end of the log), or `null` when there is nothing to cut. */
  readonly cutAt: number | null
  /** Every record from the cut on, in physical order. */
  readonly records: readonly RepairRecord[]
  /** Events those records hold, counting the records whose count is known. */
  readonly events: number
  /** Records whose event count cannot be known (they do not decode). */
  readonly undecodable: number
  /** True when the records were cut (`confirm` given and something to cut). */
  readonly cut: boolean
  /** Where the copy kept before the cut is, when the backend keeps one. */
  readonly backup?: string
  /** The revision after the cut, or the scanned one. */
  readonly revision: string
  readonly location?: string
}

/** What `migrate` did (02 §4.7). */
export interface MigrateResult {
  readonly sessionId: string
  /** False when the session was already in the current store format (nothing was written). */
  readonly migrated: boolean
  /** `'session'`: its artifact was rewritten; `'store'`: the whole store (a SQLite database file) was. */
  readonly scope?: 'session' | 'store'
  /** Every session rewritten. */
  readonly sessions: readonly string[]
  /** Where the original is kept until the user deletes it. */
  readonly original?: string
}

/** The confirmation `breakLock` requires; `ownerId: null` matches an unparsable lock. */
export interface BreakLockConfirmation {
  readonly ownerId: string | null
  readonly confirm: 'break-lock'
}

/** A projection checkpoint (02 §1.6; shape owned by chapter 03 §1.4). */
export interface ProjectionCheckpoint {
  readonly sessionId: string
  /** Every row's watermark; always below the stored durable cursor. */
  readonly seq: number
  /** Copy of the event at `seq`. */
  readonly anchor: { readonly time: number; readonly type: string }
  readonly rows: { readonly [key: string]: JsonValue }
}

/** Kind of an in-process claim (02 §3.1). */
export type ClaimKind = 'handle' | 'live-session' | 'retiring'

/** `details.holder` of `SESSION_LOCKED` (02 §1.7). */
export type LockHolderDetails =
  | { readonly scope: 'in-process'; readonly kind: ClaimKind }
  | {
    readonly scope: 'process'
    readonly pid: number | null
    readonly host: string | null
    readonly ownerId: string | null
    readonly acquiredAt: number | null
    readonly sameHost: boolean
  }

/** Who committed: a live writer, a handle append/materialisation, or an `open` repair cut. */
export type CommitSource = 'live' | 'handle' | 'repair'

/** Payload of `persistence/committed` (02 §1.8). */
export interface PersistenceCommittedEvent {
  readonly sessionId: string
  readonly source: CommitSource
  readonly fromSeq: number
  /** The new durable cursor. */
  readonly toSeq: number
  /** The exact objects written, seqs `fromSeq … toSeq − 1`; `[]` for a cut. */
  readonly events: readonly SessionEvent[]
  readonly revision: string
  /** Bytes (JSONL), rows (SQLite) or records (memory) after the commit. */
  readonly physicalLength: number
  readonly ownerId: string
}

/** Payload of `persistence/write-failed` (02 §1.8). */
export interface PersistenceWriteFailedEvent {
  readonly sessionId: string
  readonly error: unknown
  readonly terminal: boolean
  /** 1-based count of consecutive failures. */
  readonly attempt: number
}

/** Payload of `persistence/claimed` and `persistence/released` (02 §1.8). */
export interface PersistenceClaimEvent {
  readonly sessionId: string
  readonly ownerId: string
  readonly kind: ClaimKind
}

/** Config shared by every backend (02 §1.5); defaults live in the schema (`config.ts`). */
export interface SessionPersistenceConfig {
  readonly writeBatchMaxDelayMs: number
  readonly retryInitialDelayMs: number
  readonly retryMaxDelayMs: number
  readonly packChunks: boolean
}

/** Config of the memory backend. */
export interface MemorySessionPersistenceConfig extends SessionPersistenceConfig {
  /** Same-named instances in one process share storage. */
  readonly storeName?: string
}
