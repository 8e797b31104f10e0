import { CodedError } from '@logbook/session'
import { describe, expect, it } from 'vitest'
import { ToolError, ToolRegistryError } from '../src/index.ts'

describe('the tool seam errors', () => {
  it('ToolError extends CodedError: name ToolError (also for subclasses), an enumerable code defaulting to TOOL_ERROR', () => {
    class DiskError extends ToolError {}
    const cases: [ToolError, string][] = [
      [new ToolError('no such file', 'NOT_FOUND'), 'NOT_FOUND'],
      [new ToolError('plain'), 'TOOL_ERROR'],
      [new ToolError('empty code', ''), 'TOOL_ERROR'],
      [new DiskError('disk full', 'DISK_FULL'), 'DISK_FULL'],
    ]
    for (const [error, code] of cases) {
      expect(error).toBeInstanceOf(CodedError)
      expect({ name: error.name, code: error.code }).toEqual({ name: 'ToolError', code })
      expect(Object.getOwnPropertyDescriptor(error, 'code')).toMatchObject({ value: code, enumerable: true })
    }
    expect(new ToolRegistryError('INVALID_TOOL', 'x')).toBeInstanceOf(CodedError)
  })
})
