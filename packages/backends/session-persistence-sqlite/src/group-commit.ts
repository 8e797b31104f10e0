/**
 * Group commit (02 §6 "Group commit"): the write batches (`append`, `materialize`) of every session queued while the
 * process runs its current callback and the promise reactions it starts are written by one `BEGIN IMMEDIATE`
 * transaction, each batch inside its own savepoint. One commit (one sync) makes them all durable; a batch that fails
 * its own checks rolls back to its savepoint and rejects alone, and each promise settles only after the commit.
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
    const outcomes: Outcome[] = []
    try {
      this.connection.write(stmt => {
        for (const batch of batches) outcomes.push(this.runOne(stmt, batch))
        if (!outcomes.some(outcome => outcome.ok)) throw NOTHING_TO_COMMIT
      })
    } catch (error) {
      if (error !== NOTHING_TO_COMMIT) {
        for (const batch of batches) batch.reject(error)
        return
      }
    }
    batches.forEach((batch, i) => {
      const outcome = outcomes[i]!
      if (outcome.ok) batch.resolve(outcome.value)
      else batch.reject(outcome.error)
    })
  }

  /** One batch inside its savepoint: released on success, rolled back to on a confined failure. */
  private runOne(stmt: Stmt, batch: Batch): Outcome {
    stmt('savepoint').run()
    let value: unknown
    try {
      value = batch.run(stmt)
    } catch (error) {
      if (!confined(error)) throw error
      stmt('rollback-to-savepoint').run()
      stmt('release-savepoint').run()
      return { ok: false, error: mapStoreError(error, this.connection.path) }
    }
    stmt('release-savepoint').run()
    return { ok: true, value }
  }
}
