/**
 * The record columns of a row store (02 §6, §6b): an event row keeps the record body and indexed copies of its ends —
 * first seq, last seq, kind, first type and first time — which must agree with the decoded body (`decodeEventRow`
 * checks every row it reads with these functions).
 */
import type { RecordResult } from './backend.ts'

type Decoded = RecordResult & { readonly ok: true }
/** A scalar body is not validated before this check: it may be any JSON value, `null` included. */
type Loose = { readonly type?: unknown; readonly seq?: unknown; readonly time?: unknown } | null

/**
 * Why the columns `seq, lastSeq, kind, type, time` disagree with the record `decoded` from a body, or `undefined`
 * when they agree. A packed row's ends come from its run (its members stay unbuilt, 01 §10).
 */
export function recordColumnsProblem(decoded: Decoded, seq: number, lastSeq: number, kind: string, type: string, time: number): string | undefined {
  const { run } = decoded
  let bodyKind: string, firstType: unknown, firstSeq: unknown, firstTime: unknown, bodyLastSeq: unknown
  if (run !== undefined) {
    bodyKind = run.tag
    firstType = 'assistant/chunk'
    firstSeq = run.seq0
    firstTime = run.firstTime
    bodyLastSeq = run.seq0 + run.length - 1
  } else {
    const { events } = decoded
    if (events.length === 0) return 'holds no event'
    const first = events[0] as Loose
    // Any value whose type is a row tag decodes as a run (or fails to decode), so this is a scalar record.
    bodyKind = 'event'
    firstType = first?.type
    firstSeq = first?.seq
    firstTime = first?.time
    bodyLastSeq = (events[events.length - 1] as Loose)?.seq
  }
  if (bodyKind !== kind) return `body kind ${bodyKind} differs from kind column ${kind}`
  if (firstSeq !== seq) return `body seq ${String(firstSeq)} differs from seq column`
  if (bodyLastSeq !== lastSeq) return `body last seq ${String(bodyLastSeq)} differs from last_seq column ${lastSeq}`
  if (firstType !== type) return `body type ${String(firstType)} differs from type column ${type}`
  if (firstTime !== time) return `body time ${String(firstTime)} differs from time column ${time}`
  return undefined
}

/** The time of the last event of `decoded` (unvalidated for a scalar record: `undefined` when it has none). */
export function recordLastTime(decoded: Decoded): unknown {
  if (decoded.run !== undefined) return decoded.run.lastTime
  const { events } = decoded
  return (events[events.length - 1] as Loose | undefined)?.time
}
