/**
 * `repair(id, { cutAt?, confirm? })` (spec 02 §4.7): the way out of a refused log. Under write ownership (claim and
 * lock, like a resume) it finds the first defect, plans a cut there (or at an earlier record boundary `cutAt`),
 * names every record the cut removes and the events they hold, and only with `confirm: 'cut-records'` keeps a
 * backup and cuts.
 */
import type { PhysicalScan, ScanRecord } from './backend.ts'
import { checkStoredHeader, inheritedCount, walkRecords, type WalkedRecords } from './classify.ts'
import { invalidArgument } from './errors.ts'
import type { Host } from './host.ts'
import { withWriteOwnership } from './ownership.ts'
import { beginFor, isPlainObject, isSeqArgument, throwIfAborted } from './prelude.ts'
import type { OperationOptions, RepairRecord, RepairRequest, RepairResult } from './types.ts'
import { describe } from './util.ts'

/** The first seq and the event count of a record that decodes, else what store metadata says. */
function recordOf(record: ScanRecord<unknown>): RepairRecord {
  const { result } = record
  const line = record.line === undefined ? {} : { line: record.line }
  if (!result.ok) return { ...line, events: record.eventCount ?? null, problem: result.reason }
  const first = (result.events[0] as { seq?: unknown } | undefined)?.seq
  return { ...line, ...(Number.isSafeInteger(first) ? { seq: first as number } : {}), events: result.events.length }
}

/** Index of the valid record starting at `seq`, or why `seq` is no record boundary of the valid prefix. */
function boundaryAt(id: string, scan: PhysicalScan<unknown>, walked: WalkedRecords<unknown>, seq: number): number {
  const end = walked.defect?.index ?? scan.records.length
  let start = scan.startSeq
  for (let r = 0; r < end; r++) {
    const result = scan.records[r]!.result
    const count = result.ok ? result.events.length : 0
    if (start === seq) return r
    if (seq < start + count) {
      throw invalidArgument(`cut at seq ${seq} falls inside the record holding seqs ${start}–${start + count - 1}; cut at ${start}`, id)
    }
    start += count
  }
  if (seq === walked.nextSeq) return end
  const limit = walked.defect === null ? `the log ends at seq ${walked.nextSeq}` : `the first defect is at seq ${walked.defect.seq}`
  throw invalidArgument(`cannot cut at seq ${seq}: ${limit}; a cut starts at or before it`, id)
}

function checkRequest(id: string, request: unknown): RepairRequest {
  if (request === undefined) return {}
  if (!isPlainObject(request)) throw invalidArgument(`repair expects { cutAt?, confirm? }, got ${describe(request)}`, id)
  const { cutAt, confirm } = request
  if (cutAt !== undefined && !isSeqArgument(cutAt)) throw invalidArgument(`cutAt must be a non-negative safe integer, got ${describe(cutAt)}`, id)
  if (confirm !== undefined && confirm !== 'cut-records') throw invalidArgument(`confirm must be 'cut-records' when present, got ${describe(confirm)}`, id)
  return request as RepairRequest
}

/**
 * Plan (and with `confirm: 'cut-records'` perform) the cut that makes a refused log open again.
 * @throws `SESSION_NOT_FOUND`, `SESSION_LOCKED`, `INVALID_ARGUMENT` (request, a `cutAt` past the first defect or
 * inside a record, a cut that would remove a fork's lineage marker), `SESSION_CORRUPT` / `SESSION_FORMAT_UNSUPPORTED`
 * (the header: a cut cannot repair it), `STORE_IO`.
 */
export async function repairSession(host: Host, id: string, request: RepairRequest | undefined, opts?: OperationOptions): Promise<RepairResult> {
  const signal = beginFor(host, opts, id)
  const { cutAt, confirm } = checkRequest(id, request)
  const result = await withWriteOwnership(host, id, signal, async (claim, lock, scan) => {
    const header = checkStoredHeader(id, scan)
    const walked = walkRecords(scan, type => host.isKnownType(type))
    const { defect } = walked
    const from = cutAt === undefined ? defect?.index ?? scan.records.length : boundaryAt(id, scan, walked, cutAt)
    const fromSeq = cutAt ?? walked.nextSeq
    const seeded = inheritedCount(header)
    if (header.isSeeded === true && fromSeq <= seeded) {
      throw invalidArgument(`cannot cut at seq ${fromSeq}: the fork's lineage marker at seq ${seeded} must stay`, id)
    }
    const records = scan.records.slice(from).map(recordOf)
    let events = 0
    let undecodable = 0
    for (const record of records) {
      if (record.events === null) undecodable += 1
      else events += record.events
    }
    const plan = {
      sessionId: id,
      defect: defect === null ? null : { seq: defect.seq, detail: defect.detail, ...(defect.record.line === undefined ? {} : { line: defect.record.line }) },
      cutAt: records.length === 0 ? null : fromSeq,
      records,
      events,
      undecodable,
      ...(scan.location === undefined ? {} : { location: scan.location }),
    }
    if (confirm !== 'cut-records' || records.length === 0) return { ...plan, cut: false, revision: scan.revision }
    throwIfAborted(signal)
    const token = lock.token!
    const backup = await host.backend.backup?.(token, signal)
    throwIfAborted(signal)
    const marker = scan.records[from]!.marker
    const committed = await host.backend.cut(token, marker, { nextSeq: fromSeq, revision: scan.revision }, signal)
    host.committed({
      sessionId: id, source: 'repair', fromSeq: committed.nextSeq, toSeq: committed.nextSeq, events: [],
      revision: committed.revision, physicalLength: committed.physicalLength, ownerId: claim.owner.ownerId,
    })
    return { ...plan, cut: true, revision: committed.revision, ...(backup === undefined ? {} : { backup }) }
  })
  return Object.freeze(result)
}
