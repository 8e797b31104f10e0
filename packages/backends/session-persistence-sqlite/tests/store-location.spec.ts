/** P-137: the SQLite backend reports its database file as the store location; `:memory:` has none. */
import { existsSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { Context } from '@deepseek-ai/cordis'
import SessionStore from '@logbook/session'
import type { SessionPersistence } from '@logbook/session-persistence'
import { describe, expect, it } from 'vitest'
import SqliteSessionPersistence from '../src/index.ts'
import { tempDir } from './fixture.ts'

async function locationOf(path: string): Promise<SessionPersistence['storeLocation']> {
  const app = new Context()
  const store = app.plugin(SessionStore)
  await store
  const fiber = app.plugin(SqliteSessionPersistence, { path })
  await fiber
  try {
    return (app.get('sessionPersistence') as SessionPersistence).storeLocation
  } finally {
    await fiber.dispose()
    await store.dispose()
  }
}

describe('storeLocation', () => {
  it('P-137 is the absolute database file, reported without creating it; :memory: has none', async () => {
    const dir = tempDir()
    try {
      const path = join(dir, 'logbook.sqlite')
      expect(await locationOf(path)).toEqual({ kind: 'file', path })
      expect(existsSync(path)).toBe(false)
      expect(await locationOf(':memory:')).toBeUndefined()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
