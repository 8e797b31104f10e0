/**
 * Group commit (02 §6 "Group commit"): the write batches (`append`, `materialize`) of every session queued while the
 * process runs its current callback and the promise reactions it starts are written by one `BEGIN IMMEDIATE`
 * transaction. One commit (one sync) makes them all durable. A batch that fails its own checks rejects alone: the
 * group is then written again with each batch inside its own savepoint, and each promise settles after the commit.
 */

import { mapStoreError, sqliteCode, type Statement, type StoreConnection } from './connection.ts'
import type { StatementName } from './sql.ts'

type Stmt = (name: StatementName) => Statement

/** One queued batch: the statements it runs inside its savepoint, and how its caller learns the outcome. */
interface Batch {
  readonly run: (stmt: Stmt) => unknown
  readonly resolve: (value: unknown) => void
  readonly reject: (error: unknown) => void
}

type Outcome = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: unknown }

/** Thrown inside the transaction when every batch failed: nothing is left to commit, so it rolls back. */
const NOTHING_TO_COMMIT: unique symbol = Symbol('nothing to commit')
/** Thrown inside a savepoint-free attempt when a batch of a group failed: roll back and start over isolated. */
const ISOLATE: unique symbol = Symbol('isolate the batches')

/**
 * A batch's failure stays its own when it is the batch's verdict (a persistence error, a constraint its rows broke):
 * the transaction is intact. Any other SQLite error (busy, I/O, full, corrupt) may have ended the transaction, so it
 * fails the whole group.
 */
function confined(error: unknown): boolean {
  const code = sqliteCode(error)
  return code === undefined || code.startsWith('SQLITE_CONSTRAINT')
}

/**
 * Every session's queued batches written by one transaction per tick: each promise settles only after that
 * transaction's COMMIT (or its rollback), with its own result or its own error.
 */
export class CommitGroup {
  private queued: Batch[] = []
  private scheduled = false

  constructor(private readonly connection: StoreConnection) {}

  /**
   * Queue `run` for the next group transaction; resolves with its result once that transaction committed.
   * The group starts on `process.nextTick`: after the running callback and every promise reaction already queued,
   * without waiting for a timer or an event-loop turn.
   * @throws (rejects) what `run` throws, mapped to the persistence codes; or the group's failure (`STORE_IO`…).
   */
  enqueue<T>(run: (stmt: Stmt) => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queued.push({ run, resolve: resolve as (value: unknown) => void, reject })
      if (this.scheduled) return
      this.scheduled = true
      process.nextTick(this.drain)
    })
  }

  /** Write every queued batch now, in queue order, in one transaction (also called by `close` before closing). */
  readonly drain = (): void => {
    this.scheduled = false
    const batches = this.queued
    if (batches.length === 0) return
    this.queued = []
    let outcomes: readonly Outcome[]
    try {
      // Savepoints cost a sub-journal copy of every page a batch touches, so the first attempt runs without them.
      outcomes = this.attempt(batches, false) ?? this.attempt(batches, true)!
    } catch (error) {
      for (const batch of batches) batch.reject(error)
      return
    }
    batches.forEach((batch, i) => {
      const outcome = outcomes[i]!
      if (outcome.ok) batch.resolve(outcome.value)
      else batch.reject(outcome.error)
    })
  }

  /**
   * One transaction over `batches`. With `isolate` each batch runs inside its savepoint; without, a failed batch of
   * a group may have left rows behind, so the transaction rolls back and `undefined` asks for an isolated attempt
   * (a lone batch needs none: its failure leaves nothing to commit). @throws the group's failure.
   */
  private attempt(batches: readonly Batch[], isolate: boolean): Outcome[] | undefined {
    const outcomes: Outcome[] = []
    try {
      this.connection.write(stmt => {
        for (const batch of batches) {
          const outcome = this.runOne(stmt, batch, isolate)
          if (!outcome.ok && !isolate && batches.length > 1) throw ISOLATE
          outcomes.push(outcome)
        }
        if (!outcomes.some(outcome => outcome.ok)) throw NOTHING_TO_COMMIT
      })
    } catch (error) {
      if (error === ISOLATE) return undefined
      if (error !== NOTHING_TO_COMMIT) throw error
    }
    return outcomes
  }

  /** One batch, inside its savepoint when `isolate` (released on success, rolled back to on a confined failure). */
  private runOne(stmt: Stmt, batch: Batch, isolate: boolean): Outcome {
    if (isolate) stmt('savepoint').run()
    let value: unknown
    try {
      value = batch.run(stmt)
    } catch (error) {
      if (!confined(error)) throw error
      if (isolate) {
        stmt('rollback-to-savepoint').run()
        stmt('release-savepoint').run()
      }
      return { ok: false, error: mapStoreError(error, this.connection.path) }
    }
    if (isolate) stmt('release-savepoint').run()
    return { ok: true, value }
  }
}
