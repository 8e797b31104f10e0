/**
 * `verify` of one stored session (spec 03 §6.2): read-only — no repair, no write ownership, so it also runs beside
 * a writer. Checks, in order: format version, checksums, torn tail, corruption, seq contiguity and the event validator,
 * surface replay, turn/step/tool relations, pairing on the final surface, compaction brackets, and the projection
 * checkpoint (which never affects the verdict).
 */

import { readFile } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import {
  assertSessionEvent, deriveEventMessage, foldSurface, type SessionEvent,
} from '@logbook/session'
import { isSessionPersistenceError, type SessionInspection, type SessionPersistence } from '@logbook/session-persistence'
import { oneLine } from '../errors.ts'
import type { Progress } from '../io.ts'
import { checkBrackets } from './brackets.ts'
import { checkRelations } from './relations.ts'
import type { Finding, VerifyReport, VerifyStatus } from './types.ts'

const ok = (check: Finding['check'], message: string): Finding => ({ severity: 'ok', check, message })

/** The verdict of a list of findings; projection checkpoint findings never count. */
export function statusOf(findings: readonly Finding[]): VerifyStatus {
  const counted = findings.filter(finding => finding.check !== 'projection-checkpoint')
  if (counted.some(finding => finding.severity === 'FAIL' && finding.check === 'format')) return 'unsupported'
  if (counted.some(finding => finding.severity === 'FAIL')) return 'corrupt'
  if (counted.some(finding => finding.severity === 'warn')) return 'repairable'
  return 'ok'
}

/** The exit code of a verdict: `0`, `5` (repairable) or `6`. */
export function exitCodeOfStatus(status: VerifyStatus): number {
  switch (status) {
    case 'ok': return 0
    case 'repairable': return 5
    case 'corrupt':
    case 'unsupported': return 6
  }
}

function eventChecks(events: readonly SessionEvent[], progress?: Progress): Finding {
  for (let i = 0; i < events.length; i++) {
    const event = events[i]!
    if (event.seq !== i) return { severity: 'FAIL', check: 'events', message: `seq ${event.seq} is not contiguous; expected ${i}`, seq: event.seq }
    try {
      assertSessionEvent(event)
    } catch (error) {
      return { severity: 'FAIL', check: 'events', message: oneLine(error), seq: i }
    }
    if ((i & 1023) === 0) progress?.tick(i)
  }
  return ok('events', `${events.length} events, contiguous and valid`)
}

function pairing(events: readonly SessionEvent[], nodes: readonly number[]): Finding {
  const calls = new Set<string>()
  const answered = new Set<string>()
  for (const seq of nodes) {
    const message = deriveEventMessage(events[seq]!)
    if (message === null) continue
    if (message.role === 'assistant') {
      for (const block of message.content) if (block.type === 'tool-call') calls.add(block.id)
    } else if (message.role === 'user' && message.source.kind === 'tool') {
      const block = message.content[0]
      const id = block?.type === 'tool-result' ? block.toolCallId : message.source.callId
      if (!calls.has(id)) return { severity: 'FAIL', check: 'pairing', message: `tool result at seq ${seq} has no matching tool call on the surface`, seq }
      answered.add(id)
    }
  }
  const open = [...calls].filter(id => !answered.has(id)).length
  return ok('pairing', `${answered.size} tool results paired${open > 0 ? `, ${open} call${open === 1 ? '' : 's'} unanswered` : ''}`)
}

/**
 * The `seq` of a JSONL session's `projections.json` (02 §5: beside `session.jsonl`), read raw: the read API drops a
 * checkpoint that is not below the stored event count, which is exactly the `ahead` case verify reports. Undefined
 * for other backends and when there is no readable checkpoint.
 */
async function rawJsonlCheckpointSeq(persistence: SessionPersistence, id: string): Promise<number | undefined> {
  const location = await persistence.locate(id)
  if (location === undefined || basename(location) !== 'session.jsonl') return undefined
  try {
    const value = JSON.parse(await readFile(join(dirname(location), 'projections.json'), 'utf8')) as { seq?: unknown } | null
    return Number.isSafeInteger(value?.seq) ? value!.seq as number : undefined
  } catch {
    return undefined // absent or unreadable: the backend treats both as no checkpoint
  }
}

async function projectionCheckpoint(persistence: SessionPersistence, id: string, events: readonly SessionEvent[]): Promise<Finding> {
  try {
    const cp = await persistence.readProjectionCheckpoint(id)
    const ahead = (seq: number): Finding => ({
      severity: 'warn', check: 'projection-checkpoint', message: `ahead: seq ${seq} is not stored; projections fold from 0`, seq,
    })
    if (cp === undefined) {
      const raw = await rawJsonlCheckpointSeq(persistence, id)
      return raw !== undefined && raw >= events.length ? ahead(raw) : ok('projection-checkpoint', 'absent')
    }
    if (cp.seq >= events.length) return ahead(cp.seq)
    const anchor = events[cp.seq]!
    if (anchor.time !== cp.anchor.time || anchor.type !== cp.anchor.type) {
      return { severity: 'warn', check: 'projection-checkpoint', message: `stale: the event at seq ${cp.seq} does not match its anchor; projections fold from 0`, seq: cp.seq }
    }
    return ok('projection-checkpoint', `usable at seq ${cp.seq} (${Object.keys(cp.rows).join(', ') || 'no rows'})`)
  } catch (error) {
    return { severity: 'warn', check: 'projection-checkpoint', message: `unreadable: ${oneLine(error)}` }
  }
}

function report(session: string, events: number, findings: Finding[]): VerifyReport {
  return { session, events, status: statusOf(findings), findings }
}

/**
 * Verify stored session `id` through `persistence`'s read paths.
 * @throws `SESSION_NOT_FOUND` and I/O failures; defects are findings, not throws.
 */
export async function verifySession(persistence: SessionPersistence, id: string, startProgress?: (total: number) => Progress): Promise<VerifyReport> {
  let inspection: SessionInspection
  try {
    inspection = await persistence.inspect(id)
  } catch (error) {
    if (isSessionPersistenceError(error, 'SESSION_FORMAT_UNSUPPORTED')) {
      return report(id, 0, [{ severity: 'FAIL', check: 'format', message: oneLine(error) }])
    }
    if (isSessionPersistenceError(error, 'SESSION_CORRUPT')) {
      // The valid prefix ends at the first defect, whose seq is the number of events before it.
      const seq = (error as { seq?: unknown }).seq
      return report(id, typeof seq === 'number' ? seq : 0, [ok('format', 'supported'), {
        severity: 'FAIL', check: 'corruption', message: `${oneLine(error)}; logbook repair ${id} shows what a cut there removes`,
        ...(typeof seq === 'number' ? { seq } : {}),
      }])
    }
    throw error
  }
  const { events, header, tornTail } = inspection
  const progress = startProgress?.(events.length)
  const findings: Finding[] = [ok('format', `version ${header.version}`), ok('checksums', inspection.checksums
    ? 'every record and the header match their checksums'
    : `no checksums (a session of the older store format; logbook migrate ${id} adds them)`)]
  findings.push(tornTail === null
    ? ok('torn-tail', 'none')
    : { severity: 'warn', check: 'torn-tail', message: `resume would cut the unfinished last record at seq ${tornTail.fromSeq}${tornTail.droppedEvents > 0 ? ` (${tornTail.droppedEvents} decodable event(s))` : ''}: ${tornTail.detail}`, seq: tornTail.fromSeq })
  findings.push(ok('corruption', 'no defect'))
  const valid = eventChecks(events, progress)
  findings.push(valid)
  let nodes: number[] | undefined
  if (valid.severity === 'ok') {
    try {
      nodes = foldSurface(events).nodes
      findings.push(ok('surface', `${nodes.length} surface nodes`))
    } catch (error) {
      findings.push({ severity: 'FAIL', check: 'surface', message: oneLine(error) })
    }
    const relations = checkRelations(events)
    if (relations.violation !== undefined) {
      findings.push({ severity: 'FAIL', check: 'relations', message: relations.violation.detail, seq: relations.violation.seq })
    } else if (relations.openTurn !== null) {
      // A live writer's open turn may be running: no resume could close it now, so no closers are promised.
      const message = inspection.claim === 'none'
        ? `turn ${relations.openTurn} is open; a resume appends ${inspection.closers.length} closer(s)`
        : `turn ${relations.openTurn} is open and its writer is live (${inspection.claim}): it may be running`
      findings.push({ severity: 'warn', check: 'relations', message })
    } else {
      findings.push(ok('relations', 'every turn, step and tool call is closed'))
    }
    if (nodes !== undefined) findings.push(pairing(events, nodes))
    findings.push(...checkBrackets(events))
  }
  findings.push(await projectionCheckpoint(persistence, id, events))
  progress?.end()
  return report(id, events.length, findings)
}
