/**
 * The backend hook contract (spec 02 §1.4): what a storage package implements so the shared coordinator can drive it.
 *
 * ## How a backend package becomes a Cordis plugin
 *
 * Subclass `SessionPersistence` (exported by `@logbook/session-persistence`) and hand your backend to `super`:
 *
 * ```ts
 * import { SessionPersistence } from '@logbook/session-persistence'
 * export default class JsonlSessionPersistence extends SessionPersistence<JsonlConfig> {
 *   static Config = JsonlConfigSchema            // built with `persistenceConfigFields()` (config.ts) + own keys
 *   constructor(ctx: Context, config: JsonlConfig) { super(ctx, config, new JsonlBackend(config)) }
 * }
 * ```
 *
 * `static inject = ['sessions']` is inherited. The coordinator calls `backend.start(signal)` once at plugin start
 * (a failure fails the plugin) and `backend.close()` last at teardown. It owns claims, per-id FIFO serialisation (no
 * two hooks for one id run concurrently in one coordinator), write-behind, §4.1 classification, the version and
 * known-type checks and the diagnostic events. The backend owns bytes or rows, atomicity, locks and listing.
 *
 * ## Conventions for every hook
 *
 * - The last parameter is an `AbortSignal` (never undefined); a hook may check it between steps and reject with
 *   `signal.reason`, but must leave storage consistent (a committed step stays committed).
 * - Failures are `SessionPersistenceError`s (errors.ts): `STORE_IO` for I/O failures (retryable unless the `cause` is
 *   an `AggregateError` of the failure and a failed rollback), `SESSION_LOCKED` (`details.holder`, `details.lost`),
 *   `SESSION_CONFLICT`, `SESSION_ALREADY_EXISTS`, `STORE_UNSAFE`/`STORE_FOREIGN`/`STORE_INCOMPATIBLE`.
 * - Revisions are opaque strings compared for equality only (02 §4.4), e.g. `jsonl:<storeId>:<incarnation>:<size>:<hash>`.
 * - A backend never checks header versions, event types or §4.1 validity itself: `scan` reports what it found.
 */
import type { PackedRun, SessionEvent, SessionHeader } from '@logbook/session'
import type {
  ListProblem,
  PersistenceCapabilities,
  ProjectionCheckpoint,
  SessionSummary,
  StoreLocation,
} from './types.ts'

/** The recorded holder of a cross-process lock (02 §3, lock file content / lease row). */
export interface LockOwner {
  /** UUID v4 minted per claim and registered in the process-global owner set while held. */
  readonly ownerId: string
  readonly pid: number
  readonly host: string
  /** Field 22 of `/proc/<pid>/stat` on Linux (as a decimal string), `null` elsewhere (02 §3.2). */
  readonly processStart: string | null
  /** Epoch ms of acquisition. */
  readonly acquiredAt: number
}

/**
 * Proof that `lock` succeeded; passed back to every writing hook. Backends may return a subtype carrying their own
 * state (file descriptor, observed size); the coordinator never looks past these fields.
 */
export interface LockToken {
  readonly sessionId: string
  readonly owner: LockOwner
}

/** What a stored lock says about its holder; `holder: null` when the lock exists but cannot be parsed. */
export interface LockInfo {
  readonly holder: LockOwner | null
}

/** Outcome of decoding one record (§1.4). */
export type RecordResult =
  | {
    readonly ok: true
    readonly events: readonly SessionEvent[]
    /**
     * Set by `decodeRecordValue`/`decodeRecordText` when the events are the members core's
     * `decodeStorageRecord` built from a chunk row it validated (exact keys, contiguous safe-integer seqs and times),
     * so classification checks only the first seq and the times' sign. Omit it for anything else.
     */
    readonly packed?: true
    /**
     * Set with `packed` by `decodeRecordValue`/`decodeRecordText`: the validated row itself, so classification can
     * keep its members packed (`events` builds them when read).
     */
    readonly run?: PackedRun
  }
  | {
    readonly ok: false
    /**
     * Why the record fails its checksum, does not parse or does not decode (free text, shown in `tornTail.detail`
     * and corruption errors).
     */
    readonly reason: string
  }

/** One physical record after the header, in physical order (§1.4). */
export interface ScanRecord<M> {
  /** Opaque cut marker: JSONL byte offset, SQLite seq. May be falsy (0); test with `!== undefined`. */
  readonly marker: M
  /**
   * False only for a JSONL fragment after the last newline (a torn tail, §4.1), which must be the last record;
   * SQLite rows always are complete.
   */
  readonly complete: boolean
  /**
   * Decoded events (not yet envelope-checked: the coordinator classifies), or why the record is a defect: its
   * checksum (recomputed by the backend with `recordChecksum` before decoding) fails, or it does not decode.
   */
  readonly result: RecordResult
  /** 1-based JSONL line number (header = line 1), for corruption errors. */
  readonly line?: number
  /**
   * How many events the record covers according to store metadata (SQLite `last_seq − seq + 1`),
   * counted in `tornTail.droppedEvents` when the LAST record (the one a crash can tear) does not decode. Omit when
   * unknown (JSONL fragments).
   */
  readonly eventCount?: number
}

/** Everything `scan` read from one stored session (§1.4). */
export interface PhysicalScan<M> {
  /**
   * The raw header object with store-internal fields removed (JSONL strips `type` and `incarnation`), exactly as
   * parsed; `undefined` when it did not parse. The coordinator checks `version` first, then `headerProblem`, then
   * core's `assertSessionHeader`.
   */
  readonly header: unknown
  /** A store-level identity problem (header JSON ≠ columns, directory ≠ project key, bad `type`…) → `SESSION_CORRUPT`. */
  readonly headerProblem?: string
  /**
   * The stored header cannot be trusted at all (its checksum fails, its framing is unreadable): `SESSION_CORRUPT`
   * before any header field, the version included, is looked at.
   */
  readonly headerDefect?: string
  /**
   * True when the header and every record carry a checksum and the scan verified each (the current store format);
   * false for a session of the older store format, which has none (`verify` says so, `migrate` adds them).
   */
  readonly checksums: boolean
  /**
   * True when the store holds the session in an older layout than the one this build writes, checksums or not
   * (SQLite schema versions 1 and 2): `migrate` rewrites it. Absent when the layout is current.
   */
  readonly outdatedLayout?: boolean
  readonly storeId: string
  /** UUID minted when the session was first materialised. */
  readonly incarnation: string
  /** Revision of exactly the scanned state (02 §4.4). */
  readonly revision: string
  /** Bytes (JSONL), rows (SQLite), records (memory) of the scanned state. */
  readonly physicalLength: number
  /** Seq the first returned record must start at: 0 for a full scan, else the seq of the record covering `fromSeq`. */
  readonly startSeq: number
  readonly records: readonly ScanRecord<M>[]
  /** Where the artifact lives (when locatable); appended to format errors as ` (raw log: <location>)`. */
  readonly location?: string
}

/** One encoded record, produced by the shared codec (record-codec.ts) for every backend (§1.4). */
export interface EncodedRecord {
  /** The record text: a scalar event's JSON in envelope key order, or a core `ChunkRow`'s JSON. No newline. */
  readonly text: string
  /** `recordChecksum(text)`: stored with the record in the current store format (02 §1.4). */
  readonly crc: number
  /** `'event'` for a scalar record, else the chunk-row tag. */
  readonly kind: 'event' | 'text-chunks' | 'reasoning-chunks' | 'tool-call-chunks'
  /** First and last seq covered. */
  readonly seq: number
  readonly lastSeq: number
  /** Type and time of the first event (SQLite columns); `assistant/chunk` for packed rows. */
  readonly type: string
  readonly time: number
  /** Time of the last event covered (`updated_at`). */
  readonly lastTime: number
}

/** What `expect` a writing hook verifies against storage (02 §1.4). */
export interface ExpectedState {
  /** The durable cursor the writer believes in; the batch's first seq for `append`. */
  readonly nextSeq: number
  /** The revision the writer last observed or produced. */
  readonly revision: string
}

/** Result of `materialize`, `append` and `cut`. */
export interface CommitResult {
  /** New durable cursor. */
  readonly nextSeq: number
  readonly revision: string
  /** Bytes (JSONL), rows (SQLite), records (memory) after the commit. */
  readonly physicalLength: number
  /** The incarnation of the stored session; required from `materialize` (a new UUID), optional elsewhere. */
  readonly incarnation?: string
}

/** What `migrate` did (02 §4.7). */
export interface MigrationResult {
  /** Every session rewritten: the one asked for, or every session of a store whose format is the whole store. */
  readonly sessions: readonly string[]
  /** Where the original is kept (a file the user deletes once satisfied). */
  readonly original: string
  /** `'session'`: one session's artifact; `'store'`: the whole store (SQLite database file). */
  readonly scope: 'session' | 'store'
}

/** A validated listing request (the coordinator validated limits and decoded the cursor). */
export interface BackendListQuery {
  readonly cwd?: string
  /** A string: children of that id; `null`: sessions without parent. */
  readonly parentSession?: string | null
  readonly updatedAfter?: number
  /** 1–500. */
  readonly limit: number
  /** Keyset position: return only items strictly after it in (`updatedAt` desc, id bytes asc) order. */
  readonly after?: { readonly updatedAt: number; readonly id: string }
}

/** A backend's answer to `list`: at most `limit` items in order, whether more exist, and entries it could not read. */
export interface BackendListResult {
  readonly items: readonly SessionSummary[]
  readonly hasMore: boolean
  /** Every unreadable entry (the coordinator shows them on the first page only). */
  readonly problems: readonly ListProblem[]
}

/** The hooks a storage backend implements (02 §1.4). `M` = opaque cut marker, `T` = the backend's lock token. */
export interface PersistenceBackend<M = unknown, T extends LockToken = LockToken> {
  /** Short name used in messages (`'<name> dispose failed'`) and `ctx.sessionPersistence.backendName`. */
  readonly name: string
  readonly capabilities: PersistenceCapabilities
  /**
   * How `scan`'s decoded events may be handed to `Session.fromRestore` (02 §1.2): `'detached'` when every scan returns
   * fresh `JSON.parse` results nobody else references (JSONL, SQLite), `'shared-frozen'` when they are deep-frozen
   * objects shared with the store (memory).
   */
  readonly eventState: 'detached' | 'shared-frozen'
  /** The store's folder or file on this machine; omit when it has none (memory, a server). */
  readonly storeLocation?: StoreLocation | undefined

  /** Validate the configured store without creating files. @throws `STORE_UNSAFE`/`STORE_FOREIGN`/`STORE_INCOMPATIBLE`. */
  start(signal: AbortSignal): Promise<void>

  /** Take the cross-process lock for `id` (taking over a dead holder, §3.2). @throws `SESSION_LOCKED` with `details.holder`. */
  lock(id: string, owner: LockOwner, signal: AbortSignal): Promise<T>
  /** Confirm `token` still holds the lock. @throws `SESSION_LOCKED` with `details.lost: true`. */
  verifyLock(token: T, signal: AbortSignal): Promise<void>
  /** Release the lock if `token` still holds it (a lock owned by someone else is left alone). */
  unlock(token: T, signal: AbortSignal): Promise<void>
  /** The lock currently stored for `id`, if any (for `inspect().claim`). */
  readLock(id: string, signal: AbortSignal): Promise<LockInfo | undefined>
  /**
   * Remove the lock of `id` when its holder's owner id equals `ownerId` (`null` matches an unparsable lock), alive or
   * not. No lock → resolves. @throws `SESSION_CONFLICT` when another owner holds it.
   */
  breakLock(id: string, ownerId: string | null, signal: AbortSignal): Promise<void>

  /** True iff a stored log (artifact) exists for `id`; never creates anything. */
  exists(id: string, signal: AbortSignal): Promise<boolean>
  /**
   * Read the stored session: header, identity and records in physical order; `undefined` when no artifact exists.
   * With `fromSeq`, it may start at the record covering `fromSeq` (then `startSeq` says where).
   */
  scan(id: string, options: { readonly fromSeq?: number }, signal: AbortSignal): Promise<PhysicalScan<M> | undefined>
  /**
   * Optional: the revision a `scan` of `id` would report now (02 §4.4), found without reading the records; `undefined`
   * when no artifact exists. A read handle's first `read` uses it to hand over the events `open` decoded when the
   * stored session has not changed since, instead of scanning it again.
   */
  revision?(id: string, signal: AbortSignal): Promise<string | undefined>
  /**
   * Atomically create the artifact with `header` and `records` (a new incarnation); refuses an existing one.
   * @throws `SESSION_ALREADY_EXISTS`, `SESSION_LOCKED` (`lost`), `STORE_IO`.
   */
  materialize(token: T, header: SessionHeader, records: readonly EncodedRecord[], signal: AbortSignal): Promise<CommitResult>
  /**
   * Append `records` after verifying the lock and that storage is exactly at `expect` (else nothing is written).
   * @throws `SESSION_LOCKED` (`lost`), `SESSION_CONFLICT`, `STORE_IO` (storage left unchanged).
   */
  append(token: T, expect: ExpectedState, records: readonly EncodedRecord[], signal: AbortSignal): Promise<CommitResult>
  /**
   * Remove the marker's record, every later record, and a checkpoint whose `seq` is at or beyond the cut seq.
   * `marker` is a record's marker from the scan at `expect.revision`; `expect.nextSeq` is the cut seq (the seq that
   * record starts at, which becomes the new cursor).
   * @throws `SESSION_LOCKED` (`lost`), `SESSION_CONFLICT` (storage not at `expect`, or the marker starts no record).
   */
  cut(token: T, marker: M, expect: ExpectedState, signal: AbortSignal): Promise<CommitResult>
  /**
   * Optional: keep a copy of the stored session before a repair cuts it (JSONL: a copy of the file beside it;
   * SQLite: `VACUUM INTO` a file beside the database) and return where it is. @throws `STORE_IO`.
   */
  backup?(token: T, signal: AbortSignal): Promise<string>
  /**
   * Optional (backends with an older store format): rewrite the stored session in the current store format, keeping
   * the original until the user deletes it. `verify(id, scan)` runs the §4.1 checks on a scan and throws when a
   * session must not be migrated; a backend whose format is the whole store (SQLite) runs it for every session.
   * Called only when the scan of `token`'s session had `checksums: false` or `outdatedLayout: true`.
   * @throws what `verify` throws, `SESSION_LOCKED` (another live holder), `SESSION_CONFLICT`, `STORE_IO`.
   */
  migrate?(token: T, verify: (id: string, scan: PhysicalScan<M>) => void, signal: AbortSignal): Promise<MigrationResult>
  /** Delete log, checkpoint and lock when storage is at `expectRevision`. @throws `SESSION_CONFLICT`, `SESSION_LOCKED`. */
  remove(token: T, expectRevision: string, signal: AbortSignal): Promise<{ readonly location?: string }>
  /** Optional: remove stale temp files of `id` (called by `open('write')` after the checks and any cut). */
  removeStaleTemps?(token: T, signal: AbortSignal): Promise<void>

  /** One page of stored sessions; see `BackendListQuery` (list-order.ts has the shared comparator). */
  list(query: BackendListQuery, signal: AbortSignal): Promise<BackendListResult>
  /** Absolute path of the artifact, or `undefined` when not stored or not locatable. */
  locate(id: string, signal: AbortSignal): Promise<string | undefined>

  /**
   * The stored projection checkpoint, or `undefined` when absent or when its `seq` is not below the stored cursor
   * (the backend's own count of stored events).
   */
  readCheckpoint(id: string, signal: AbortSignal): Promise<ProjectionCheckpoint | undefined>
  /** Atomically replace the checkpoint of `id` (lock verified first). @throws `SESSION_LOCKED` (`lost`), `STORE_IO`. */
  writeCheckpoint(token: T, id: string, checkpoint: ProjectionCheckpoint, signal: AbortSignal): Promise<void>

  /** Release every resource (descriptors, connections). Called once, last, at teardown. */
  close(): Promise<void>
}
