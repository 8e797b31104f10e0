import { describe, expect, it } from 'vitest'
import {
  ChunkRowError, codeOf, CodedError, describeValue, messageOf, SessionError, SessionForkError, SessionInvariantError,
} from '../src/errors.ts'

type DemoCode = 'ONE' | 'TWO'

class DemoError extends CodedError<DemoCode> {}

class KeyedError extends CodedError<'KEYED'> {
  readonly key: string

  constructor(key: string) {
    super('KEYED', `key ${key} is bad`)
    this.key = key
  }
}

describe('CodedError, the shared base of coded error classes', () => {
  it('sets code once (enumerable, read-only), name to the concrete class name and keeps the message exact', () => {
    const error = new DemoError('TWO', 'two went wrong')
    expect(error).toBeInstanceOf(Error)
    expect(error).toBeInstanceOf(CodedError)
    expect({ name: error.name, code: error.code, message: error.message }).toEqual({ name: 'DemoError', code: 'TWO', message: 'two went wrong' })
    expect(Object.getOwnPropertyDescriptor(error, 'code')).toEqual({ value: 'TWO', enumerable: true, writable: false, configurable: false })
    expect(() => {
      (error as { code: string }).code = 'ONE'
    }).toThrow(TypeError)
    expect(error.code).toBe('TWO')
  })

  it('passes the cause through as given and sets none without options', () => {
    const cause = new Error('root')
    expect(new DemoError('ONE', 'x', { cause }).cause).toBe(cause)
    expect('cause' in new DemoError('ONE', 'x')).toBe(false)
  })

  it('a subclass with its own constructor and fields keeps the same code and name behaviour', () => {
    const error = new KeyedError('k1')
    expect({ name: error.name, code: error.code, message: error.message, key: error.key }).toEqual({ name: 'KeyedError', code: 'KEYED', message: 'key k1 is bad', key: 'k1' })
  })
})

describe('the session core errors extend CodedError', () => {
  it('SessionError and its subclasses are CodedErrors with their own name, an enumerable read-only code and the exact message', () => {
    const cases: [SessionError, string, string, string][] = [
      [new SessionError('INVALID_EVENT', 'event "x": bad', 3), 'SessionError', 'INVALID_EVENT', 'event "x": bad'],
      [new SessionForkError('INVALID_BOUNDARY', 'boundary 9 is out of range'), 'SessionForkError', 'INVALID_BOUNDARY', 'boundary 9 is out of range'],
      [new SessionInvariantError('s', 'turn 2 is open'), 'SessionInvariantError', 'SESSION_INVARIANT', 'session "s" invariant: turn 2 is open'],
      [new ChunkRowError('chunks', 'no members'), 'ChunkRowError', 'MALFORMED_CHUNK_ROW', 'malformed chunks storage row: no members'],
    ]
    for (const [error, name, code, message] of cases) {
      expect(error).toBeInstanceOf(CodedError)
      expect(error).toBeInstanceOf(SessionError)
      expect({ name: error.name, code: error.code, message: error.message }).toEqual({ name, code, message })
      expect(Object.getOwnPropertyDescriptor(error, 'code')).toEqual({ value: code, enumerable: true, writable: false, configurable: false })
    }
    expect(new SessionError('INVALID_SEED', 'x', 3).index).toBe(3)
    expect('cause' in new SessionError('INVALID_SEED', 'x')).toBe(false)
  })
})

describe('the text of thrown values', () => {
  const hostile = { toString(): string { throw new Error('no') } }

  it('messageOf: an error\'s (or any object\'s string) message, else the value as text, never throwing', () => {
    expect(messageOf(new TypeError('bad type'))).toBe('bad type')
    expect(messageOf({ message: 'plain object', code: 'X' })).toBe('plain object')
    expect(messageOf('a string')).toBe('a string')
    expect(messageOf(42)).toBe('42')
    expect(messageOf(undefined)).toBe('undefined')
    expect(messageOf(hostile)).toBe('[object Object]')
  })

  it('codeOf: an UPPER_SNAKE string code only', () => {
    expect(codeOf(new SessionError('NOT_JSON', 'x'))).toBe('NOT_JSON')
    expect(codeOf({ code: 'STORE_IO' })).toBe('STORE_IO')
    expect([codeOf({ code: 'enoent' }), codeOf({ code: 7 }), codeOf(null), codeOf(undefined), codeOf('CODE')]).toEqual([undefined, undefined, undefined, undefined, undefined])
  })

  it('describeValue: strings JSON-quoted, errors as their message, else the value as text, never throwing', () => {
    expect(describeValue('a "b"')).toBe('"a \\"b\\""')
    expect(describeValue(new Error('boom'))).toBe('boom')
    expect(describeValue(7)).toBe('7')
    expect(describeValue(null)).toBe('null')
    expect(describeValue(hostile)).toBe('[object Object]')
  })
})
