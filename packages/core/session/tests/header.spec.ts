import { describe, expect, it } from 'vitest'
import { SessionError } from '../src/errors.ts'
import {
  assertSessionHeader, CallId, isValidSessionId, MessageId, parsedHeaderError, SESSION_FORMAT_VERSION, SessionId,
  snapshotHeader,
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

describe('parsedHeaderError (01 §5.6, in place for JSON.parse output)', () => {
  const nested = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth)
  const texts = [
    '{"version":1,"id":"s1","createdAt":0}',
    '{"version":2,"id":"s1","createdAt":5,"cwd":"/home/user","parentSession":"p","isSeeded":true,"seedLength":0,'
      + '"origin":"subagent","delegationDepth":2,"agentPreset":"x","importedFrom":{"tool":"t","file":"f"}}',
    '{"version":1,"id":"s1","createdAt":-0}',
    '{"version":1,"id":"s1","createdAt":1e400}',
    '{"version":1,"id":"s1","createdAt":0,"extra":-0}',
    '{"extra":1,"version":1,"id":"s1","createdAt":-0}',
    '{"zz":1,"yy":2,"version":2,"id":"x"}',
    '{"version":1,"id":"s1","createdAt":0,"__proto__":{"a":1}}',
    '{"version":1,"id":"s1","createdAt":0,"importedFrom":{"tool":"t","n":[-0]}}',
    '{"version":1,"id":"s1","createdAt":0,"importedFrom":{"tool":"t","n":1}}',
    '{"version":1,"id":"s1","createdAt":0,"importedFrom":[]}',
    '{"version":1,"id":"s1","createdAt":0,"importedFrom":{"file":"f"}}',
    `{"version":1,"id":"s1","createdAt":0,"deep":${nested(999)}}`,
    `{"version":1,"id":"s1","createdAt":0,"deep":${nested(1000)}}`,
    '{"version":3,"id":"s1","createdAt":-1}',
    '{"version":1,"id":"s2","createdAt":0}',
    '{"version":1,"id":"s1","createdAt":1.5}',
    '{"version":1,"id":"s1","createdAt":0,"cwd":"rel","origin":"x"}',
    '{"version":1,"id":"s1","createdAt":0,"parentSession":"a/b"}',
    '{"version":1,"id":"s1","createdAt":0,"isSeeded":"yes"}',
    '{"version":1,"id":"s1","createdAt":0,"isSeeded":true,"seedLength":1}',
    '{"version":1,"id":"s1","createdAt":0,"seedLength":1}',
    '{"version":1,"id":"s1","createdAt":0,"origin":"x"}',
    '{"version":1,"id":"s1","createdAt":0,"delegationDepth":-0}',
    '{"version":1,"id":"s1","createdAt":0,"agentPreset":""}',
    'null', '[]', '"header"', '7', '[{"version":1,"id":"s1","createdAt":0}]',
  ]

  const verdict = (run: () => unknown): [string, string] | 'valid' => {
    try {
      const error = run()
      if (error === undefined) return 'valid'
      expect(error).toBeInstanceOf(SessionError)
      return [(error as SessionError).code, (error as SessionError).message]
    } catch (error) {
      expect(error).toBeInstanceOf(SessionError)
      return [(error as SessionError).code, (error as SessionError).message]
    }
  }

  it('S-084 S-086 gives every parsed header the code and message assertSessionHeader gives it, in the same order', () => {
    const seen = new Set<string>()
    for (const text of texts) {
      for (const sessionId of ['s1', 'a/b']) {
        const expected = verdict(() => { assertSessionHeader(JSON.parse(text), sessionId as typeof id) })
        const got = verdict(() => parsedHeaderError(JSON.parse(text), sessionId))
        expect([text.slice(0, 120), sessionId, got]).toEqual([text.slice(0, 120), sessionId, expected])
        seen.add(expected === 'valid' ? 'valid' : expected[1])
      }
    }
    // The corpus reaches check 1 by -0, by an overflowing number and by depth, and most later checks.
    expect(verdict(() => parsedHeaderError(JSON.parse(texts[13]!) as Record<string, unknown>, 's1'))).toEqual(['INVALID_HEADER', 'session header must be a plain object'])
    expect(verdict(() => parsedHeaderError(JSON.parse(texts[12]!) as Record<string, unknown>, 's1'))).toEqual(['INVALID_HEADER', 'session header has unknown field "deep"'])
    expect(seen.size).toBeGreaterThanOrEqual(18)
  })

  it('S-085 validates in place: the parsed object is neither copied nor frozen', () => {
    const value = JSON.parse('{"version":1,"id":"s1","createdAt":0,"importedFrom":{"tool":"t"}}') as Record<string, unknown>
    expect(parsedHeaderError(value, 's1')).toBeUndefined()
    expect(Object.isFrozen(value)).toBe(false)
    expect(Object.isFrozen(value.importedFrom)).toBe(false)
  })
})
