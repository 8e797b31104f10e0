import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { SseParser, type SseEvent } from '../src/sse.ts'

function parse(...pieces: string[]): SseEvent[] {
  const parser = new SseParser()
  return pieces.flatMap(piece => parser.push(piece))
}

const STREAM = [
  ': comment line\r\n',
  'event: ping\r\n',
  'data: {"a":\r\n',
  'data:1}\r\n',
  '\r\n',
  'id: 7\n',
  'data\n',
  '\n',
  'data:  two spaces\r',
  '\r',
  'retry: 10\n',
  '\n',
  'data: tail without blank line',
].join('')

describe('SseParser (WHATWG event stream)', () => {
  it('joins data lines with \\n, keeps one leading space out, honours event and id, ignores comments', () => {
    expect(parse(STREAM)).toEqual([
      { event: 'ping', data: '{"a":\n1}', id: '' },
      { event: 'message', data: '', id: '7' },
      { event: 'message', data: ' two spaces', id: '7' },
    ])
  })

  it('dispatches nothing for a blank line without data, and drops an unterminated final event', () => {
    expect(parse('event: x\n\n', ': c\n\n', 'data: a')).toEqual([])
  })

  it('treats a CR at the end of one read and a LF at the start of the next as one line ending', () => {
    expect(parse('data: a\r', '\ndata: b\r', '\n\r', '\n')).toEqual([{ event: 'message', data: 'a\nb', id: '' }])
  })

  it('gives the same events however the stream is split across reads', () => {
    const whole = parse(STREAM)
    fc.assert(fc.property(fc.uniqueArray(fc.integer({ min: 1, max: STREAM.length - 1 }), { maxLength: 12 }), cuts => {
      const sorted = [...cuts].sort((a, b) => a - b)
      const pieces = [0, ...sorted].map((start, i) => STREAM.slice(start, sorted[i] ?? STREAM.length))
      expect(parse(...pieces)).toEqual(whole)
    }))
  })
})
