/**
 * Types of the JSONL backend. Types only.
 */
import type { CommitResult, LockToken, SessionPersistenceConfig } from '@logbook/session-persistence'
import type { AppendSlab } from './append-slab.ts'
import type { Framing } from './framing.ts'
import type { StoredState } from './revision.ts'
import type { SessionLocation } from './store.ts'

/** Config of `JsonlSessionPersistence` (02 §1.5): the shared keys plus `root` and `durability`. */
export interface JsonlSessionPersistenceConfig extends SessionPersistenceConfig {
  /** Store root; a relative path resolves against `ctx.baseUrl` (else `process.cwd()`) at start. */
  readonly root: string
  /** `'fsync'`: fdatasync per batch, directory fsync on new entries. `'none'`: no fsync at all (tests). */
  readonly durability: 'fsync' | 'none'
}

/** What a lock token remembers about the session it writes; mutated only under the coordinator's per-id queue. */
export interface WriterState {
  /** Where the log is, once materialised or first found. */
  location: SessionLocation | undefined
  /** Open descriptor (read-write) for appends and cuts, closed at unlock. */
  fd: number | undefined
  /**
   * The file as this writer last observed or committed it: its size and last bytes (so a new revision needs no
   * read; the revision is hashed when first read).
   */
  state: StoredState | undefined
  /** The result of this writer's last commit: passed back as the next `expect`, it needs no revision compare. */
  committed: CommitResult | undefined
  /** The framing of the file's lines (from its header line), known once the file was opened or created. */
  framing: Framing | undefined
  /** Where appends are framed: the bytes written and the new state's tail are views of it (append-slab.ts). */
  readonly slab: AppendSlab
  /** True once the lock file was removed by `remove` or `unlock`. */
  released: boolean
  /** The writer's own lock file, held open for cheap checks (session-lock.ts); closed with the writer's descriptor. */
  lock: HeldLock | undefined
}

/** The JSONL lock token: the seam's token plus the lock path and writer state. */
export interface JsonlLockToken extends LockToken {
  readonly lockPath: string
  readonly writer: WriterState
}

/** The open lock inode of one writer and the exact bytes it must hold. */
export interface HeldLock {
  readonly fd: number
  readonly dev: bigint
  readonly ino: bigint
  /** The lock record this writer wrote (`encodeLockRecord`). */
  readonly bytes: Buffer
  /** Room for one byte more than `bytes`, so a longer file is seen as different. */
  readonly scratch: Buffer
  /**
   * The inode's change time (`ctimeMs`) when a full check last found the lock intact, once that check ran late
   * enough that any later change must move it; until then (and after any doubt) every check is a full one.
   */
  trustedCtime: number | undefined
}
