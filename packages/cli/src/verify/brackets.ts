/**
 * Compaction brackets over a whole stored log (spec 03 §2.1, §2.2, §8): a violation fails; an unmatched start
 * after the last end-seed is a live lock (repairable: a resume releases it); an unmatched start before an
 * end-seed is an exempt orphan (ok, with a note).
 */

import { isCompactionCheckpoint } from '@logbook/compaction'
import type { SessionEvent } from '@logbook/session'
import type { Finding } from './types.ts'

interface Bracket {
  readonly id: string
  readonly seq: number
  readonly turn: number | null
  summary: boolean
  checkpoint: boolean
}

const ALLOWED_OWNER_ENDS = new Set(['interrupted', 'forked', 'error'])

function fail(message: string, seq: number): Finding {
  return { severity: 'FAIL', check: 'compaction', message, seq }
}

/** What is wrong with a summary's span description (03 §8), if anything. */
function summaryProblem(data: Record<string, unknown>): string | undefined {
  const seqs = data.shadowedSeqs
  const range = data.shadowedRange as { start?: unknown; end?: unknown } | undefined
  if (!Array.isArray(seqs) || seqs.length === 0) return 'shadowedSeqs must be a non-empty array'
  if (range?.start !== seqs[0] || range?.end !== seqs.at(-1)) return 'shadowedRange must name the first and last shadowed seq'
  const count = data.shadowedTokenCount
  if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 0) return 'shadowedTokenCount must be a non-negative integer'
  return undefined
}

/** The compaction findings of `events` (at least one). */
export function checkBrackets(events: readonly SessionEvent[]): Finding[] {
  const notes: Finding[] = []
  let open: Bracket | null = null
  let openTurn: number | null = null
  let brackets = 0
  for (const event of events) {
    const data = event.data as Record<string, unknown>
    const id = typeof data.compactionId === 'string' ? data.compactionId : ''
    switch (event.type as string) {
      case 'turn/start':
        if (open !== null && open.turn === null) return [fail(`turn/start inside the manual compaction opened at seq ${open.seq}`, event.seq)]
        openTurn = (data as { turn: number }).turn
        break
      case 'turn/end': {
        const kind = (data as { reason: { kind: string } }).reason.kind
        if (open !== null && open.turn === openTurn && !ALLOWED_OWNER_ENDS.has(kind)) {
          return [fail(`turn ${String(openTurn)} ended ${kind} inside its compaction opened at seq ${open.seq}`, event.seq)]
        }
        openTurn = null
        break
      }
      case 'session/end-seed':
        if (open !== null) {
          notes.push({ severity: 'ok', check: 'compaction', message: `compaction/start at seq ${open.seq} was orphaned; the end-seed at seq ${event.seq} exempts it`, seq: open.seq })
          open = null
        }
        break
      case 'compaction/start': {
        if (open !== null) return [fail(`compaction/start while the compaction opened at seq ${open.seq} is open`, event.seq)]
        const turn = (data.turn ?? null) as number | null
        if (id === '') return [fail('compaction/start without a compactionId', event.seq)]
        if (turn !== openTurn) return [fail(`compaction/start names turn ${String(turn)} but the open turn is ${String(openTurn)}`, event.seq)]
        open = { id, seq: event.seq, turn, summary: false, checkpoint: false }
        brackets += 1
        break
      }
      case 'compaction/summary': {
        if (open === null || open.id !== id || open.summary) return [fail(`compaction/summary ${id} does not belong to an open compaction`, event.seq)]
        const problem = summaryProblem(data)
        if (problem !== undefined) return [fail(`compaction/summary ${id}: ${problem}`, event.seq)]
        open.summary = true
        break
      }
      case 'compaction/end':
        if (open === null || open.id !== id) return [fail(`compaction/end ${id} does not close an open compaction`, event.seq)]
        if ((data.turn ?? null) !== open.turn) return [fail(`compaction/end names turn ${String(data.turn)} but its start named ${String(open.turn)}`, event.seq)]
        if (data.error === undefined && !(open.summary && open.checkpoint)) {
          return [fail(`compaction/end without error but without ${open.summary ? 'checkpoint' : 'summary'}`, event.seq)]
        }
        open = null
        break
      default:
        if (isCompactionCheckpoint(event)) {
          const named = (event.data as { id: string }).id.slice('compaction-'.length)
          if (open === null || open.id !== named || !open.summary || open.checkpoint) {
            return [fail(`compaction checkpoint ${named} does not follow its summary inside its compaction`, event.seq)]
          }
          open.checkpoint = true
        }
    }
  }
  if (open !== null) {
    return [...notes, { severity: 'warn', check: 'compaction', message: `live lock: compaction/start at seq ${open.seq} was never closed; a resume releases it`, seq: open.seq }]
  }
  return [...notes, { severity: 'ok', check: 'compaction', message: `${brackets} bracket${brackets === 1 ? '' : 's'}` }]
}
