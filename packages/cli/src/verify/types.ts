/**
 * Types of `logbook verify` (spec 03 §6.2). This file holds types only.
 */

/** How bad a finding is: `warn` is repairable by a resume, `FAIL` is not. */
export type Severity = 'ok' | 'warn' | 'FAIL'

/** The checks, in the order they run and print. */
export type CheckName =
  | 'format'
  | 'checksums'
  | 'torn-tail'
  | 'corruption'
  | 'events'
  | 'surface'
  | 'relations'
  | 'pairing'
  | 'compaction'
  | 'projection-checkpoint'

/** One printed result of one check. */
export interface Finding {
  readonly severity: Severity
  readonly check: CheckName
  readonly message: string
  readonly seq?: number
}

/** The verdict for one session: the worst finding (projection checkpoints never count). */
export type VerifyStatus = 'ok' | 'repairable' | 'corrupt' | 'unsupported'

/** What `verify --json` prints per session. */
export interface VerifyReport {
  readonly session: string
  /** Events checked; for a corrupt log the valid events before its first defect; 0 when the format is unsupported. */
  readonly events: number
  readonly status: VerifyStatus
  readonly findings: readonly Finding[]
}
