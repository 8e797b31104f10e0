import { CodedError } from '@logbook/session'
import { describe, expect, it } from 'vitest'
import { LlmError, LlmFailureError } from '../src/index.ts'

describe('the model seam errors', () => {
  it('LlmFailureError extends CodedError: its name, an enumerable read-only code from the failure, the failure as given', () => {
    const failure = { code: 'RATE_LIMITED', message: 'slow down', status: 429, retryAfterMs: 1000 }
    const error = new LlmFailureError(failure)
    expect(error).toBeInstanceOf(CodedError)
    expect(error).toBeInstanceOf(LlmFailureError)
    expect({ name: error.name, code: error.code, message: error.message }).toEqual({ name: 'LlmFailureError', code: 'RATE_LIMITED', message: 'slow down' })
    expect(error.failure).toBe(failure)
    expect(Object.getOwnPropertyDescriptor(error, 'code')).toMatchObject({ value: 'RATE_LIMITED', enumerable: true, writable: false })
    expect(new LlmError('DUPLICATE_PROVIDER', 'x')).toBeInstanceOf(CodedError)
  })
})
