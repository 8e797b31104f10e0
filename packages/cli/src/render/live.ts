/**
 * Live output of `logbook run` and `logbook chat` (spec 03 §6.2): the reply's reasoning (dimmed), text and refusal
 * streamed as their deltas arrive (`thinking>`, `model>`, `refused>`), the other lines of the transcript as their
 * events commit.
 */

import type { Session, SessionEvent } from '@logbook/session'
import type { Output } from '../io.ts'
import { TranscriptRenderer } from './transcript.ts'

/** The transcript label each streamed delta type prints under (the same labels as `show`). */
const DELTA_LABELS: Readonly<Record<string, string>> = {
  'reasoning-delta': 'thinking>',
  'text-delta': 'model>',
  'refusal-delta': 'refused>',
}

/** Options of a live transcript. */
export interface LiveOptions {
  /** Leave out `you>` lines of the user's own messages (a terminal already shows what was typed). */
  readonly skipUserMessages?: boolean
}

/** Streams the events of every live session to stdout. */
export class LiveTranscript {
  private readonly renderers = new Map<string, TranscriptRenderer>()
  /** Per session, the label of the line being streamed. */
  private readonly streaming = new Map<string, string>()
  /** `turn/end` reason kinds seen, in order. */
  readonly turnEnds: string[] = []

  constructor(private readonly output: Output, private readonly options: LiveOptions = {}) {}

  /** Handle one committed event of `session`. */
  event(session: Session, event: SessionEvent): void {
    const key = session.id
    if (event.type === 'assistant/chunk') {
      const { chunk } = event.data
      const label = DELTA_LABELS[chunk.type]
      if (label === undefined || !('text' in chunk) || chunk.text === '') return
      // A reply streams its parts as they arrive: a new line whenever the kind of delta changes.
      const dimmed = chunk.type === 'reasoning-delta'
      const current = this.streaming.get(key)
      if (current !== label) {
        if (current !== undefined) this.output.write('\n')
        this.streaming.set(key, label)
        this.output.write(dimmed ? this.output.dim(`${label} `) : `${label} `)
      }
      this.output.write(dimmed ? this.output.dim(chunk.text) : chunk.text)
      return
    }
    const streamed = this.streaming.get(key)
    this.streaming.delete(key)
    if (event.type === 'assistant/message' && streamed !== undefined) {
      this.output.write(event.data.interrupted === true ? ' (interrupted)\n' : '\n')
      // Tool calls follow as their own tool/call lines; text and reasoning were streamed already.
      return
    }
    if (streamed !== undefined) this.output.write('\n')
    if (event.type === 'turn/end') this.turnEnds.push(event.data.reason.kind)
    if (this.options.skipUserMessages === true && event.type === 'user/message' && event.data.source.kind === 'user') return
    let renderer = this.renderers.get(key)
    if (renderer === undefined) this.renderers.set(key, renderer = new TranscriptRenderer(session.header))
    for (const line of renderer.lines(event)) this.output.line(line)
  }
}
