/**
 * Assertions shared by the cases: rejections with a persistence code, "unchanged" witnesses, lossless equality of
 * stored and built events.
 */

import { expect } from 'vitest'
import type { SessionEvent } from '@logbook/session'
import { isSessionPersistenceError, type SessionPersistenceError, type SessionPersistenceErrorCode } from '@logbook/session-persistence'
import type { Mount } from './harness.ts'

const describeError = (error: unknown): string => {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code
    return `${error.name}${code === undefined ? '' : ` ${String(code)}`}: ${error.message}`
  }
  return String(error)
}

/** Await `promise` and assert it rejects with a `SessionPersistenceError` of `code`; returns the error. */
export async function rejects(promise: Promise<unknown>, code: SessionPersistenceErrorCode): Promise<SessionPersistenceError> {
  let outcome: { ok: true; value: unknown } | { ok: false; error: unknown }
  try {
    outcome = { ok: true, value: await promise }
  } catch (error) {
    outcome = { ok: false, error }
  }
  if (outcome.ok) expect.fail(`expected a rejection with ${code}, but it resolved`)
  const error = outcome.error
  if (!isSessionPersistenceError(error, code)) expect.fail(`expected ${code}, got ${describeError(error)}`)
  return error
}

/** Await `promise` and assert it rejects with exactly `reason` (identity). */
export async function rejectsWith(promise: Promise<unknown>, reason: unknown): Promise<void> {
  let outcome: { ok: true } | { ok: false; error: unknown }
  try {
    await promise
    outcome = { ok: true }
  } catch (error) {
    outcome = { ok: false, error }
  }
  if (outcome.ok) expect.fail('expected a rejection with the abort reason, but it resolved')
  if (outcome.error !== reason) expect.fail(`expected exactly the abort reason, got ${describeError(outcome.error)}`)
}

/** A plain JSON copy (drops identity and frozenness; key order is irrelevant to `toEqual`). */
export function plain<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T
}

/** Assert `actual` is lossless-JSON equal to `expected` (key order ignored). */
export function expectLossless(actual: unknown, expected: unknown, message?: string): void {
  expect(plain(actual), message).toEqual(plain(expected))
}

/** The stored state of `id` as `inspect` sees it: revision and plain events. */
export async function storedState(mount: Mount, id: string): Promise<{ revision: string; events: SessionEvent[] }> {
  const inspection = await mount.persistence.inspect(id)
  return { revision: inspection.revision, events: plain([...inspection.events]) }
}

/** Assert `id` is stored exactly as `before` (same revision, same events). */
export async function expectUnchanged(mount: Mount, id: string, before: { revision: string; events: SessionEvent[] }): Promise<void> {
  const after = await storedState(mount, id)
  expect(after.revision, `revision of "${id}" changed`).toBe(before.revision)
  expect(after.events).toEqual(before.events)
}

/** The `list` summary of `id` (walking every page), or `undefined`. Works on logs `inspect` refuses. */
export async function listed(mount: Mount, id: string): Promise<{ revision: string; eventCount: number } | undefined> {
  let cursor: string | undefined
  do {
    const page = await mount.persistence.list({ limit: 500, ...(cursor === undefined ? {} : { cursor }) })
    const item = page.items.find(i => i.id === id)
    if (item) return { revision: item.revision, eventCount: item.eventCount }
    cursor = page.nextCursor ?? undefined
  } while (cursor !== undefined)
  return undefined
}

/** Assert every value reachable from `value` is frozen. */
export function expectDeepFrozen(value: unknown): void {
  const stack: unknown[] = [value]
  while (stack.length > 0) {
    const v = stack.pop()
    if (v === null || typeof v !== 'object') continue
    expect(Object.isFrozen(v), 'a stored event object is not frozen').toBe(true)
    for (const key of Object.keys(v)) stack.push((v as Record<string, unknown>)[key])
  }
}

/** Assert no object reachable from `value` is frozen (a `detached` read result). */
export function expectUnfrozen(value: unknown): void {
  if (value === null || typeof value !== 'object') return
  expect(Object.isFrozen(value), 'a detached event object is frozen').toBe(false)
}

/** Assert `fn` throws synchronously a `SessionPersistenceError` of `code`. */
export function throwsCode(fn: () => unknown, code: SessionPersistenceErrorCode): SessionPersistenceError {
  try {
    fn()
  } catch (error) {
    if (!isSessionPersistenceError(error, code)) expect.fail(`expected ${code}, got ${describeError(error)}`)
    return error
  }
  return expect.fail(`expected a throw with ${code}, but it returned`)
}
