/**
 * The human transcript of a session (spec 03 §6.2 `show`, the demo): append-origin messages — shadowed ones
 * included — as `system>`, `you>`, `thinking>`, `model>`, `refused>`, `tool> name(args)` and `result>` lines; turn ends, compactions,
 * prunes and end-seeds as marker lines `── … ──`.
 */

import {
  isAppendSurfaceEvent, type SessionEvent, type SessionHeader, type TurnEndReason,
} from '@logbook/session'
import { labelled, resultText, textOf } from './text.ts'

/** A marker line. */
export function marker(text: string): string {
  return `── ${text} ──`
}

/** `completed`, `interrupted`, `error CODE: message`, `aborted (user)`, … */
export function describeReason(reason: TurnEndReason): string {
  switch (reason.kind) {
    case 'error': {
      const { error } = reason as { error: { code: string; message: string } }
      return `error ${error.code}: ${error.message}`
    }
    case 'aborted':
      return `aborted (${(reason as { reason: { kind: string } }).reason.kind})`
    default:
      return reason.kind
  }
}

/** Lines for one append-origin message event (shared by the transcript and the live `run` output). */
export function messageLines(event: SessionEvent, options: { skipAssistantText?: boolean } = {}): string[] {
  switch (event.type) {
    case 'system/message':
      return labelled('system>', textOf(event.data.content))
    case 'user/message': {
      const source = event.data.source as { kind: string; plugin?: string; sections?: readonly string[] }
      // The harness's dynamic context is long and repeats; a transcript names its sections (`/context` shows it).
      if (source.kind === 'runtime-context') return [marker(`runtime context: ${(source.sections ?? []).join(', ')}`)]
      const label = source.kind === 'user' ? 'you>' : `${source.plugin ?? source.kind}>`
      return labelled(label, textOf(event.data.content))
    }
    case 'assistant/message': {
      if (options.skipAssistantText === true) return []
      const { content } = event.data.message
      const interrupted = event.data.interrupted === true ? ' (interrupted)' : ''
      const lines: string[] = []
      for (const block of content) {
        if (block.type === 'reasoning' && block.text !== '') lines.push(...labelled('thinking>', block.text))
      }
      const text = textOf(content)
      const refusals = content.flatMap(block => (block.type === 'refusal' && block.text !== '' ? [block.text] : []))
      if (text !== '') lines.push(...labelled('model>', `${text}${interrupted}`))
      refusals.forEach((refusal, i) => {
        // The interruption marks the last visible part: the text, or the last refusal when there is no text.
        const mark = text === '' && i === refusals.length - 1 ? interrupted : ''
        lines.push(...labelled('refused>', `${refusal}${mark}`))
      })
      return lines
    }
    case 'tool/result': {
      const code = event.data.error?.code
      const text = resultText(event.data.message)
      return labelled('result>', code === undefined ? text : `[${code}] ${text}`)
    }
    default:
      return []
  }
}

/** Renders events one at a time, remembering what later markers need (compaction summaries). */
export class TranscriptRenderer {
  private readonly shadowed = new Map<string, number>()

  constructor(private readonly header?: SessionHeader) {}

  /** The lines of `event` (often none). */
  lines(event: SessionEvent): string[] {
    const data = event.data as Record<string, unknown>
    switch (event.type) {
      case 'turn/end':
        return [marker(`turn ${event.data.turn} ended: ${describeReason(event.data.reason)}`)]
      case 'tool/call':
        return [`tool> ${event.data.name}(${event.data.arguments})`]
      case 'session/end-seed':
        if (event.data.inherited === true) {
          const parent = this.header?.parentSession
          return [marker(`forked${parent === undefined ? '' : ` from ${parent}`} after seq ${event.seq - 1}`)]
        }
        return [marker('session resumed')]
      default:
        break
    }
    switch (event.type as string) {
      case 'compaction/summary':
        this.shadowed.set(String(data.compactionId), (data.shadowedSeqs as unknown[]).length)
        return []
      case 'compaction/end': {
        const error = data.error as { code: string } | undefined
        if (error !== undefined) return [marker(`compaction failed: ${error.code}`)]
        const count = this.shadowed.get(String(data.compactionId))
        return [marker(`compacted ${count ?? '?'} surface nodes into a summary`)]
      }
      case 'compaction/prune':
        return [marker(`pruned a tool result (${String(data.charsBefore)} → ${String(data.charsAfter)} characters)`)]
      default:
        break
    }
    return isAppendSurfaceEvent(event) ? messageLines(event) : []
  }

  /** The lines of every event in order. */
  all(events: readonly SessionEvent[]): string[] {
    return events.flatMap(event => this.lines(event))
  }
}
