import { describe, expect, it } from 'vitest'
import { CodedError } from '../src/index.ts'

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
