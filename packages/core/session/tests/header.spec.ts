import { describe, expect, it } from 'vitest'
import { SessionError } from '../src/errors.ts'
import {
  assertSessionHeader, CallId, isValidSessionId, MessageId, SESSION_FORMAT_VERSION, SessionId, snapshotHeader,
} from '../src/header.ts'

const id = SessionId('s1')
const base = { version: 1, id: 's1', createdAt: 0 }

function failure(value: unknown, sessionId: unknown = id): [string, string] {
  try {
    assertSessionHeader(value, sessionId as typeof id)
  } catch (error) {
    expect(error).toBeInstanceOf(SessionError)
    return [(error as SessionError).code, (error as SessionError).message]
  }
  throw new Error('header accepted')
}

describe('identifiers (01 §1.1)', () => {
  it('casts without checking', () => {
    expect(SessionId('a/b')).toBe('a/b')
    expect(MessageId('m')).toBe('m')
    expect(CallId('')).toBe('')
  })

  it('isValidSessionId accepts file-name-safe ids up to 128 characters', () => {
    for (const ok of ['a', 'A0', '0', 'a.b_c-d', `a${'b'.repeat(127)}`, '123e4567-e89b-12d3-a456-426614174000']) {
      expect([ok, isValidSessionId(ok)]).toEqual([ok, true])
    }
    for (const bad of ['', '.a', '-a', '_a', 'a/b', 'a b', 'ä', `a${'b'.repeat(128)}`, 'a\n', 5, null, undefined, {}]) {
      expect([bad, isValidSessionId(bad)]).toEqual([bad, false])
    }
  })
})

describe('header validation (01 §5.6)', () => {
  it('accepts a minimal header, a full seeded one and parentSession without isSeeded (S-085)', () => {
    expect(SESSION_FORMAT_VERSION).toBe(2)
    expect(() => assertSessionHeader(base, id)).not.toThrow()
    const full = {
      version: 1, id: 's1', createdAt: 5, cwd: '/home/user', parentSession: 'p', isSeeded: true, seedLength: 0,
      origin: 'subagent', delegationDepth: 2, agentPreset: 'x',
    }
    expect(() => assertSessionHeader(full, id)).not.toThrow()
    expect(() => assertSessionHeader({ ...base, parentSession: 'p' }, id)).not.toThrow()
    expect(() => assertSessionHeader({ ...base, isSeeded: false }, id)).not.toThrow()
    expect(() => assertSessionHeader({ ...base, cwd: 'C:\\work' }, id)).not.toThrow()
    expect(() => assertSessionHeader({ ...base, cwd: '\\\\server\\share' }, id)).not.toThrow()
  })

  it('S-086 checks the session id first (INVALID_SESSION_ID)', () => {
    expect(failure(base, 'a/b')).toEqual(['INVALID_SESSION_ID', 'invalid session id "a/b"'])
    expect(failure(null, '')).toEqual(['INVALID_SESSION_ID', 'invalid session id ""'])
    expect(failure(base, 7)).toEqual(['INVALID_SESSION_ID', 'invalid session id "7"'])
  })

  it('S-084 gives each check its message (INVALID_HEADER)', () => {
    const cases: [unknown, string][] = [
      [null, 'session header must be a plain object'],
      [[base], 'session header must be a plain object'],
      ['header', 'session header must be a plain object'],
      [{ ...base, extra: 1n }, 'session header must be a plain object'],
      [{ ...base, createdAt: -0 }, 'session header must be a plain object'],
      [{ ...base, foo: 1 }, 'session header has unknown field "foo"'],
      [{ ...base, version: 0 }, 'session header version must be 1 or 2, got 0'],
      [{ ...base, version: 3 }, 'session header version must be 1 or 2, got 3'],
      [{ id: 's1', createdAt: 0 }, 'session header version must be 1 or 2, got undefined'],
      [{ ...base, id: 's2' }, 'session header id "s2" does not match session id "s1"'],
      [{ ...base, createdAt: -1 }, 'session header createdAt must be a non-negative safe integer'],
      [{ version: 1, id: 's1' }, 'session header createdAt must be a non-negative safe integer'],
      [{ ...base, cwd: 'relative/dir' }, 'session header cwd must be an absolute path'],
      [{ ...base, cwd: 1 }, 'session header cwd must be an absolute path'],
      [{ ...base, parentSession: 'a/b' }, 'session header parentSession must be a valid session id'],
      [{ ...base, isSeeded: 'yes' }, 'session header isSeeded must be a boolean'],
      [{ ...base, isSeeded: true, parentSession: 'p', seedLength: 1.5 }, 'session header seedLength must be a non-negative safe integer'],
      [{ ...base, origin: 'x' }, 'session header origin must be "subagent"'],
      [{ ...base, delegationDepth: 1.5 }, 'session header delegationDepth must be a non-negative safe integer'],
      [{ ...base, agentPreset: '' }, 'session header agentPreset must be a non-empty string'],
      [{ ...base, isSeeded: true, seedLength: 1 }, 'seeded session header requires parentSession and seedLength'],
      [{ ...base, isSeeded: true, parentSession: 'p' }, 'seeded session header requires parentSession and seedLength'],
      [{ ...base, seedLength: 1 }, 'session header seedLength requires isSeeded: true'],
      [{ ...base, seedLength: 1, isSeeded: false, parentSession: 'p' }, 'session header seedLength requires isSeeded: true'],
    ]
    for (const [value, message] of cases) expect(failure(value)).toEqual(['INVALID_HEADER', message])
  })

  it('runs the checks in order: unknown field before version, version before id, id before createdAt', () => {
    expect(failure({ zz: 1, version: 2, id: 'x' })[1]).toBe('session header has unknown field "zz"')
    expect(failure({ version: 3, id: 'x', createdAt: -1 })[1]).toBe('session header version must be 1 or 2, got 3')
    expect(failure({ version: 1, id: 'x', createdAt: -1 })[1]).toBe('session header id "x" does not match session id "s1"')
    expect(failure({ ...base, cwd: 'rel', origin: 'x' })[1]).toBe('session header cwd must be an absolute path')
    expect(failure({ ...base, agentPreset: '', isSeeded: true })[1]).toBe('session header agentPreset must be a non-empty string')
  })

  it('snapshotHeader returns a frozen plain copy, reading each property once', () => {
    let reads = 0
    const source = { version: 1, id: 's1', get createdAt(): number { reads++; return reads === 1 ? 3 : -1 } }
    const copy = snapshotHeader(source, id)
    expect(reads).toBe(1)
    expect(copy).toEqual({ version: 1, id: 's1', createdAt: 3 })
    expect(copy).not.toBe(source)
    expect(Object.isFrozen(copy)).toBe(true)
    const nullProto = Object.assign(Object.create(null) as object, base)
    expect(Object.getPrototypeOf(snapshotHeader(nullProto, id))).toBe(Object.prototype)
  })
})
