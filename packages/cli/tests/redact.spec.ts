import type { SessionHeader } from '@logbook/session'
import { describe, expect, it } from 'vitest'
import { BUILT_IN_SECRETS, redactionPatterns, redactStored } from '../src/redact.ts'
import { turnEvents } from './helpers/store.ts'

describe('redaction', () => {
  it('L-172 replaces matches in every string value, never in keys, types or the header ids', () => {
    const header = { version: 1, id: 'alice-s1', createdAt: 1, cwd: '/home/alice/work', parentSession: 'alice-s0' } as unknown as SessionHeader
    const events = turnEvents(0, 1, 1_000, 'alice says hi, key sk-abcdefghijklmnopqrstuvwx')
    const { stored, replacements } = redactStored({ header, events }, redactionPatterns(['alice'], true))
    expect(stored.header).toEqual({ version: 1, id: 'alice-s1', createdAt: 1, cwd: '/home/[redacted]/work', parentSession: 'alice-s0' })
    const user = stored.events[1]!
    expect(user).toEqual({ ...events[1], data: { ...(events[1]!.data as object), content: [{ type: 'text', text: '[redacted] says hi, key [redacted]' }] } })
    expect(Object.keys(user)).toEqual(Object.keys(events[1]!))
    expect(replacements).toBe(5)
    expect(events[1]!.data).toMatchObject({ content: [{ text: 'alice says hi, key sk-abcdefghijklmnopqrstuvwx' }] })
  })

  it('L-172 the built-in set applies unless turned off; no pattern leaves the session as it is', () => {
    expect(redactionPatterns([], true)).toHaveLength(BUILT_IN_SECRETS.length)
    expect(redactionPatterns(['a'], false)).toHaveLength(1)
    const session = { header: { version: 1, id: 'x', createdAt: 1 } as unknown as SessionHeader, events: turnEvents(0, 1, 1, 'sk-abcdefghijklmnopqrstuvwx') }
    expect(redactStored(session, [])).toEqual({ stored: session, replacements: 0 })
  })
})
