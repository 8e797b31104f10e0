/**
 * Projection checkpoint storage (spec 02 §1.6): `readProjectionCheckpoint` returns the stored checkpoint while its
 * `seq` is below the durable cursor; `writeProjectionCheckpoint` replaces it atomically for an id claimed here.
 */
import { deepFreeze, isJsonValue, snapshotJsonValue } from '@logbook/session'
import { about, invalidArgument, SessionPersistenceError } from './errors.ts'
import type { Host } from './host.ts'
import { beginFor, isPlainObject, throwIfAborted } from './prelude.ts'
import type { OperationOptions, ProjectionCheckpoint } from './types.ts'
import { describe } from './util.ts'

/** `readProjectionCheckpoint(id)`: the checkpoint while its `seq` is below the durable cursor. */
export async function readCheckpoint(host: Host, id: string, opts?: OperationOptions): Promise<ProjectionCheckpoint | undefined> {
  const signal = beginFor(host, opts, id)
  await host.ready
  throwIfAborted(signal)
  const checkpoint = await host.queue.run(id, () => host.backend.readCheckpoint(id, signal))
  throwIfAborted(signal)
  const holder = host.claims.get(id)?.holder
  if (checkpoint !== undefined && holder !== undefined && checkpoint.seq >= holder.nextSeq) return undefined
  return checkpoint
}

const CHECKPOINT_KEYS = ['anchor', 'rows', 'seq', 'sessionId']

/** `writeProjectionCheckpoint(id, cp)`: arguments → claim → cursor → atomic replace. */
export async function writeCheckpoint(host: Host, id: string, checkpoint: ProjectionCheckpoint, opts?: OperationOptions): Promise<void> {
  const signal = beginFor(host, opts, id)
  const cp = checkpoint as unknown
  if (!isPlainObject(cp) || Object.keys(cp).sort().join() !== CHECKPOINT_KEYS.join()) {
    throw invalidArgument('a projection checkpoint is exactly { sessionId, seq, anchor, rows }', id)
  }
  if (cp.sessionId !== id) throw invalidArgument(`checkpoint sessionId ${describe(cp.sessionId)} does not match`, id)
  const seq = cp.seq
  if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 0) {
    throw invalidArgument('checkpoint seq must be a non-negative safe integer', id)
  }
  if (!isJsonValue(cp)) throw invalidArgument('the checkpoint is not lossless JSON', id)
  const claim = host.claims.get(id)
  const holder = claim?.holder
  const token = holder?.token
  if (claim === undefined || holder === undefined || token === undefined) {
    throw new SessionPersistenceError('SESSION_LOCKED', `${about(id)}the session is not claimed by this coordinator`, { sessionId: id })
  }
  if (seq >= holder.nextSeq) {
    throw new SessionPersistenceError(
      'CHECKPOINT_AHEAD',
      `${about(id)}checkpoint seq ${seq} is not below the durable cursor ${holder.nextSeq}`,
      { sessionId: id, details: { seq, cursor: holder.nextSeq } },
    )
  }
  const frozen = deepFreeze(snapshotJsonValue(cp) as unknown as ProjectionCheckpoint)
  await host.ready
  throwIfAborted(signal)
  await host.queue.run(id, () => host.backend.writeCheckpoint(token, id, frozen, signal))
}
