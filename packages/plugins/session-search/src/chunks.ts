/**
 * Streamed chunks whose text no assistant message carries (spec 04 §2): the attempts a request error or a crash cut
 * off (03 §5.2 keeps their chunks and writes no message). Chunks wait here until their step ends; the ones an
 * `assistant/message` cites are dropped, the rest become one text per kind (text, reasoning, refusal, tool arguments).
 */
import type { SessionEvent } from '@logbook/session'
import type { SearchField } from './types.ts'

/** A pending chunk's text. */
interface Pending {
  readonly seq: number
  readonly turn: number
  readonly field: SearchField
  readonly text: string
}

/** The text an uncited run of chunks contributes: the first chunk's seq and turn, the texts joined. */
export interface OrphanText {
  readonly seq: number
  readonly turn: number
  readonly field: SearchField
  readonly text: string
}

const FIELD_OF: Readonly<Record<string, { field: SearchField; key: 'text' | 'argumentsDelta' }>> = {
  'text-delta': { field: 'assistant', key: 'text' },
  'reasoning-delta': { field: 'reasoning', key: 'text' },
  'refusal-delta': { field: 'refusal', key: 'text' },
  'tool-call-delta': { field: 'tool-arguments', key: 'argumentsDelta' },
}

/** Pending chunks of the open step of one session, in seq order. */
export class ChunkTracker {
  private pending: Pending[] = []

  /** Seq of the oldest pending chunk, or `undefined` when none waits. */
  get oldest(): number | undefined {
    return this.pending[0]?.seq
  }

  /**
   * Feed one event. Returns the orphan texts a step or turn end releases (none when `emit` is false: a replay of
   * events whose rows are already indexed only rebuilds what is pending).
   */
  feed(event: SessionEvent, emit: boolean): OrphanText[] {
    switch (event.type) {
      case 'assistant/chunk': {
        const { chunk, turn } = event.data
        const kind = FIELD_OF[chunk.type]
        const text = kind === undefined ? undefined : (chunk as unknown as Record<string, unknown>)[kind.key]
        if (kind !== undefined && typeof text === 'string' && text !== '') this.pending.push({ seq: event.seq, turn, field: kind.field, text })
        return []
      }
      case 'assistant/message': {
        const cited = event.sourceEventSeqs
        if (cited !== undefined && cited.length > 0 && this.pending.length > 0) {
          const set = new Set(cited)
          this.pending = this.pending.filter(p => !set.has(p.seq))
        }
        return []
      }
      case 'step/end':
      case 'turn/end':
        return this.release(emit)
      default:
        return []
    }
  }

  private release(emit: boolean): OrphanText[] {
    const pending = this.pending
    this.pending = []
    if (!emit || pending.length === 0) return []
    const byField = new Map<SearchField, { seq: number; turn: number; parts: string[] }>()
    for (const p of pending) {
      const group = byField.get(p.field)
      if (group === undefined) byField.set(p.field, { seq: p.seq, turn: p.turn, parts: [p.text] })
      else group.parts.push(p.text)
    }
    const out: OrphanText[] = []
    for (const [field, group] of byField) {
      const text = group.parts.join('')
      if (text.trim() !== '') out.push({ seq: group.seq, turn: group.turn, field, text })
    }
    return out
  }
}
