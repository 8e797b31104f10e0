/**
 * The physical repair of spec 02 §4.2 and §2.1 case 3: cut a torn tail found by `readStored` and announce the cut as
 * `persistence/committed { source: 'repair', events: [] }`. Shared by `open(id, 'write')` and live binding.
 */
import type { CommitResult, LockToken } from './backend.ts'
import type { StoredState } from './classify.ts'
import type { Host } from './host.ts'
import type { RecoveryReport } from './types.ts'

/**
 * Cut `state`'s torn tail under `token` (expecting the scanned revision and the valid prefix's length) and emit the
 * repair commit. The caller runs it inside the id's queue. @throws what `backend.cut` throws (nothing was cut then).
 */
export async function cutTornTail(
  host: Pick<Host, 'backend' | 'committed'>,
  id: string,
  token: LockToken,
  state: StoredState<unknown>,
  ownerId: string,
  signal: AbortSignal,
): Promise<CommitResult> {
  const marker = state.torn!.marker
  const result = await host.backend.cut(token, marker, { nextSeq: state.nextSeq, revision: state.scan.revision }, signal)
  host.committed({
    sessionId: id, source: 'repair', fromSeq: result.nextSeq, toSeq: result.nextSeq, events: [],
    revision: result.revision, physicalLength: result.physicalLength, ownerId,
  })
  return result
}

/** `handle.recovery` for a scan: the torn tail `open` cut (write) or ignored (read), or `null`. */
export function recoveryOf(state: StoredState<unknown>): RecoveryReport {
  return state.torn === null ? null : Object.freeze({ tornTail: state.torn.report })
}
