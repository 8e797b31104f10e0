/**
 * Types of the conformance suite (spec 02 §9): what a backend hands to `runSessionPersistenceConformance`, the
 * `StoreFixture` it creates per test, the `damage` kit and the `worker` spec. Backends implement these; this file
 * holds types only. The child-process protocol lives in `worker/protocol.ts`.
 */

import type { Plugin } from '@deepseek-ai/cordis'
import type { LockOwner } from '@logbook/session-persistence'

/** A value or a promise of it: every fixture hook may be synchronous or asynchronous. */
export type Awaitable<T> = T | Promise<T>

/**
 * Named capability flags (spec 02 §9). A case that needs a capability the backend lacks is registered as skipped,
 * never silently dropped; there are no backend-name skips.
 */
export interface ConformanceCapabilities {
  /** Two mounts of one fixture (two coordinators, also sequentially) see the same stored sessions. */
  readonly durableAcrossInstances: boolean
  /** Locks work across processes; needs `StoreFixture.worker` ([xp] cases). */
  readonly crossProcess: boolean
  /** `StoreFixture.damage` edits `'bytes'` (JSONL lines) or `'rows'` (SQLite rows); `null`: no [dmg] cases. */
  readonly damage: 'bytes' | 'rows' | null
  /** SIGKILL tests ([kill]); needs `worker` and on-disk storage. */
  readonly killSafe: boolean
  /** `locate(id)` returns the absolute path of the artifact; format errors end with ` (raw log: <path>)`. */
  readonly locate: boolean
  /**
   * A record can be torn: `damage.tearLastRecord` leaves an incomplete last record (a JSONL fragment without its
   * newline) that reads drop. Without it (SQLite commits are atomic), a damaged last record is corruption.
   */
  readonly tornTail: boolean
}

/** The holder a forged lock record names (`damage.writeLockRecord`): the seam's `LockOwner` (02 §3.2). */
export type LockHolderRecord = LockOwner

/**
 * Backend test code that damages stored sessions (spec 02 §9), called only while no coordinator of the fixture
 * holds the id for writing. "Record" means a physical record after the header: a JSONL line or a SQLite
 * `logbook_events` row; `index` counts records from 0 in physical (seq) order. Never shipped.
 */
export interface DamageKit {
  /**
   * Keep only the first `keep` units of the last record (bytes of the last JSONL line including its `\n`; characters
   * of the last row's body) and return the record's full length in those units, so every `keep` in `0..len-1`
   * leaves an incomplete record. `keep` ≥ length leaves it intact and only measures (allowed at any time, also while
   * a writer holds the id).
   */
  tearLastRecord(id: string, keep: number): Awaitable<number>
  /**
   * Damage record `index` in place, keeping every other record: `'garbage'` makes it a complete record that does not
   * parse as JSON; `'seq-gap'` keeps it well-formed (same type, parses as an object with a safe-integer `seq`) but
   * makes its first seq one more than the seq it is stored at, so it no longer follows the previous record — both
   * stored with a checksum that matches the new text, as a buggy writer would; `'checksum'` changes one digit of its
   * text (`changeOneDigit`) and leaves the stored checksum as it was, so only the checksum tells.
   */
  corruptRecord(id: string, index: number, kind: 'garbage' | 'seq-gap' | 'checksum'): Awaitable<void>
  /**
   * Append `text` as one complete record after the last one, as a writer would store it, checksum included (JSONL:
   * the framed line; SQLite: a row whose body is `text`, the session row's next seq advanced when `text` decodes to
   * events at the expected seq). Text that decodes to valid events at the next seq extends the log; anything else is
   * a defect.
   */
  appendRawRecord(id: string, text: string): Awaitable<void>
  /**
   * Set header field `key` to `value` (`undefined` deletes it) in the stored header, with a matching checksum,
   * leaving every record intact.
   */
  setHeaderField(id: string, key: string, value: unknown): Awaitable<void>
  /** Replace the stored header by text that does not parse as JSON (optional: the sub-cases needing it skip). */
  corruptHeader?(id: string): Awaitable<void>
  /** Change one digit of the stored header's `createdAt`, leaving its stored checksum as it was. */
  flipHeaderDigit(id: string): Awaitable<void>
  /** Store a cross-process lock (lock file or lease row) for `holder` on `id`, replacing any existing one. */
  writeLockRecord(id: string, holder: LockHolderRecord): Awaitable<void>
}

/**
 * How the suite mounts the same store in a child process (`node --conditions=source --import tsx`, IPC).
 * `module` is an absolute path or `file:` URL of an ES module whose default export is the backend plugin (usually
 * the backend's `src/index.ts`); `config` is its JSON-serialisable config, naming the same store as the fixture.
 */
export interface WorkerSpec {
  readonly module: string
  readonly config: Readonly<Record<string, unknown>>
  /**
   * Resolve once the store has finished what the SIGKILLed child `pid` left in flight. A database server may still
   * commit a killed client's last transaction after the client is gone; the suite calls this after every kill, before
   * it reads, so that what it reads is what the next process will find. Files need none.
   */
  settle?(pid: number): Promise<void>
}

/**
 * Fresh isolated storage for one test (spec 02 §9). The suite mounts `@logbook/session` and `plugin` with `config`
 * in a new Context for every mount (mounting again = reopening the store).
 */
export interface StoreFixture {
  /** The backend plugin (default export of the backend package). */
  readonly plugin: Plugin
  /** Its config; the suite may add the common keys (`writeBatchMaxDelayMs`, `retry*`, `packChunks`). */
  readonly config: Readonly<Record<string, unknown>>
  /** Required when `capabilities.damage` is not `null`. */
  readonly damage?: DamageKit
  /** Required when `capabilities.crossProcess` or `capabilities.killSafe`. */
  readonly worker?: WorkerSpec
}

/** The suite's operation files (spec 02 §9), in registration order. */
export type OperationName =
  | 'create' | 'open' | 'append' | 'read' | 'read-from' | 'inspect' | 'list' | 'delete' | 'write-behind'
  | 'flush' | 'ownership' | 'cross-process' | 'resume' | 'torn-tail' | 'corruption' | 'repair' | 'format' | 'fork-lineage'
  | 'projection-checkpoints' | 'large' | 'teardown' | 'crash' | 'load'

/** What a backend passes to `runSessionPersistenceConformance`. */
export interface ConformanceOptions {
  /** Target name shown in the suite title (`memory`, `jsonl-fsync`, `sqlite`…). */
  readonly name: string
  /** Fresh isolated storage; called once per test. */
  create(): Awaitable<StoreFixture>
  /** Remove the storage; called after every test, after every mount was disposed. */
  destroy(fixture: StoreFixture): Awaitable<void>
  readonly capabilities: ConformanceCapabilities
  /** Register only these operations (default: all). Use `['crash']` in a `*.e2e.spec.ts` file. */
  readonly only?: readonly OperationName[]
  /** Leave these operations out (e.g. `['crash']` when an e2e file runs them). */
  readonly skip?: readonly OperationName[]
}
