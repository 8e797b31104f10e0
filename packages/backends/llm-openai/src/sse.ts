/**
 * A Server-Sent Events parser following the WHATWG event-stream rules: any line ending (CRLF, LF, CR), `data:`
 * lines joined by `\n`, a blank line dispatches, comments ignored, events and line endings split across reads.
 */

/** One dispatched event. `event` defaults to `message`; `id` is the last event id seen. */
export interface SseEvent {
  readonly event: string
  readonly data: string
  readonly id: string
}

const LF = 10
const CR = 13

/** Incremental parser over decoded text; feed it each decoded read and collect the events it dispatches. */
export class SseParser {
  private pending = ''
  private skipLineFeed = false
  private data: string[] | null = null
  private type = ''
  private lastId = ''

  /** Parse the next piece of text; returns the events completed by it, in order. */
  push(text: string): SseEvent[] {
    const events: SseEvent[] = []
    let start = 0
    if (this.skipLineFeed && text.length > 0) {
      // A CR ended the previous piece; a LF opening this one belongs to the same CRLF.
      if (text.charCodeAt(0) === LF) start = 1
      this.skipLineFeed = false
    }
    for (let i = start; i < text.length; i++) {
      const code = text.charCodeAt(i)
      if (code !== LF && code !== CR) continue
      const line = this.pending + text.slice(start, i)
      this.pending = ''
      this.line(line, events)
      if (code === CR) {
        if (i + 1 < text.length) {
          if (text.charCodeAt(i + 1) === LF) i++
        } else {
          this.skipLineFeed = true
        }
      }
      start = i + 1
    }
    this.pending += text.slice(start)
    return events
  }

  private line(line: string, events: SseEvent[]): void {
    if (line === '') {
      if (this.data !== null) events.push({ event: this.type === '' ? 'message' : this.type, data: this.data.join('\n'), id: this.lastId })
      this.data = null
      this.type = ''
      return
    }
    if (line.charCodeAt(0) === 58 /* ':' */) return
    const colon = line.indexOf(':')
    const field = colon < 0 ? line : line.slice(0, colon)
    let value = colon < 0 ? '' : line.slice(colon + 1)
    if (value.startsWith(' ')) value = value.slice(1)
    switch (field) {
      case 'data':
        ;(this.data ??= []).push(value)
        break
      case 'event':
        this.type = value
        break
      case 'id':
        if (!value.includes('\0')) this.lastId = value
        break
      default:
        // `retry` and unknown fields do not affect a single request's stream.
        break
    }
  }
}
