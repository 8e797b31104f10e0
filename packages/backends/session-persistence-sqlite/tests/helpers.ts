/**
 * Small builders shared by the SQLite backend tests: headers, event batches, encoded records and lock owners.
 */

import { randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import type { SessionEvent } from '@logbook/session'
import { encodeBatch, type EncodedRecord, type LockOwner } from '@logbook/session-persistence'
import { rejection as kitRejection, thrown as kitThrown } from '@logbook/test-kit'
import { SqliteBackend } from '../src/backend.ts'
import type { ConnectionOptions } from '../src/connection.ts'

/** A never-aborted signal. */
export const signal: AbortSignal = new AbortController().signal

/** The samples the row-store backends' tests share: a valid header and a complete 6-event turn. */
export { sampleHeader as header, sampleTurn as turn } from '@logbook/session-persistence-conformance'

/** `count` scalar `todo/write` events from `seq` (one row each). */
export function scalars(seq: number, count: number, time = 1_700_000_002_000): SessionEvent[] {
  const out: SessionEvent[] = []
  for (let i = 0; i < count; i++) {
    out.push({ type: 'todo/write', seq: seq + i, time: time + i, data: { todos: [] } } as unknown as SessionEvent)
  }
  return out
}

/** The shared codec's records of `events` (chunks packed). */
export const records = (events: readonly SessionEvent[]): EncodedRecord[] => encodeBatch(events, true)

/** A lock owner of this process, registered as alive in the process-global owner set (02 §3.1). */
export function owner(): LockOwner {
  const ownerId = randomUUID()
  const global = globalThis as { [key: symbol]: Set<string> | undefined }
  const key = Symbol.for('logbook.persistence.owners')
  ;(global[key] ??= new Set<string>()).add(ownerId)
  return { ownerId, pid: process.pid, host: hostname(), processStart: null, acquiredAt: Date.now() }
}

/** A lock owner on this host whose process does not exist. */
export const deadOwner = (): LockOwner => ({
  ownerId: '00000000-0000-4000-8000-000000000001',
  pid: 2 ** 22 + 17,
  host: hostname(),
  processStart: null,
  acquiredAt: 1,
})

/** A started backend on `path` with test-friendly defaults. */
export async function startBackend(path: string, options: Partial<ConnectionOptions> = {}): Promise<SqliteBackend> {
  const backend = new SqliteBackend({
    path,
    synchronous: 'full',
    journalMode: 'wal',
    busyTimeoutMs: 5000,
    checkPermissions: true,
    ...options,
  })
  await backend.start(signal)
  return backend
}

type CodedFailure = Error & { code?: string; details?: Record<string, unknown> }

/** Await `promise` and return the error it rejects with (fails when it resolves). */
export const rejection = (promise: Promise<unknown>): Promise<CodedFailure> => kitRejection<CodedFailure>(promise)

/** Synchronous variant of `rejection`. */
export const thrown = (fn: () => unknown): CodedFailure => kitThrown<CodedFailure>(fn)
