/**
 * Live output of `logbook run` (spec 03 §6.2): the reply's reasoning, text and refusal streamed as their deltas
 * arrive (`thinking>`, `model>`, `refused>`), the other lines of the transcript as their events commit.
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

/** Streams the events of every live session to stdout. */
export class LiveTranscript {
  private readonly renderers = new Map<string, TranscriptRenderer>()
  /** Per session, the label of the line being streamed. */
  private readonly streaming = new Map<string, string>()
  /** `turn/end` reason kinds seen, in order. */
  readonly turnEnds: string[] = []

  constructor(private readonly output: Output) {}

  /** Handle one committed event of `session`. */
  event(session: Session, event: SessionEvent): void {
    const key = session.id
    if (event.type === 'assistant/chunk') {
      const { chunk } = event.data
      const label = DELTA_LABELS[chunk.type]
      if (label === undefined || !('text' in chunk) || chunk.text === '') return
      // A reply streams its parts as they arrive: a new line whenever the kind of delta changes.
      const current = this.streaming.get(key)
      if (current !== label) {
        if (current !== undefined) this.output.write('\n')
        this.streaming.set(key, label)
        this.output.write(`${label} `)
      }
      this.output.write(chunk.text)
      return
    }
    if (event.type === 'assistant/message' && this.streaming.delete(key)) {
      this.output.write(event.data.interrupted === true ? ' (interrupted)\n' : '\n')
      return
    }
    if (this.streaming.delete(key)) this.output.write('\n')
    if (event.type === 'turn/end') this.turnEnds.push(event.data.reason.kind)
    let renderer = this.renderers.get(key)
    if (renderer === undefined) this.renderers.set(key, renderer = new TranscriptRenderer(session.header))
    for (const line of renderer.lines(event)) this.output.line(line)
  }
}
