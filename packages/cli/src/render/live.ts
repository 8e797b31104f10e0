/**
 * Live output of `logbook run` (spec 03 §6.2): model text streamed as its deltas arrive, the other lines of the
 * transcript as their events commit.
 */

import type { Session, SessionEvent } from '@logbook/session'
import type { Output } from '../io.ts'
import { TranscriptRenderer } from './transcript.ts'

/** Streams the events of every live session to stdout. */
export class LiveTranscript {
  private readonly renderers = new Map<string, TranscriptRenderer>()
  private readonly streaming = new Set<string>()
  /** `turn/end` reason kinds seen, in order. */
  readonly turnEnds: string[] = []

  constructor(private readonly output: Output) {}

  /** Handle one committed event of `session`. */
  event(session: Session, event: SessionEvent): void {
    const key = session.id
    if (event.type === 'assistant/chunk') {
      const { chunk } = event.data
      if (chunk.type !== 'text-delta' || chunk.text === '') return
      if (!this.streaming.has(key)) {
        this.streaming.add(key)
        this.output.write('model> ')
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
