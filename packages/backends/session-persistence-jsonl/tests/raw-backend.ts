/**
 * A bare `JsonlBackend` in a fresh temporary store for each test, with lock owners registered as this process's
 * (as the coordinator would) and removed again afterwards. For tests that drive backend hooks directly.
 */
import { randomUUID } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import type { LockOwner } from '@logbook/session-persistence'
import { afterEach, beforeEach } from 'vitest'
import { JsonlBackend } from '../src/backend.ts'

const registry = (): Set<string> => (globalThis as { [k: symbol]: Set<string> })[Symbol.for('logbook.persistence.owners')] ??= new Set()

/** Register the per-test store and return accessors for the current test's root, backend and a new owner. */
export function useRawBackend(durability: 'fsync' | 'none', prefix: string) {
  let root = ''
  let backend: JsonlBackend | undefined
  const owners: string[] = []
  beforeEach(async () => {
    root = join(await mkdtemp(join(tmpdir(), prefix)), 'store')
    backend = new JsonlBackend(root, durability)
    await backend.start(new AbortController().signal)
  })
  afterEach(async () => {
    await backend?.close()
    for (const id of owners.splice(0)) registry().delete(id)
    await rm(join(root, '..'), { recursive: true, force: true })
  })
  return {
    get root(): string { return root },
    get backend(): JsonlBackend { return backend as JsonlBackend },
    owner(): LockOwner {
      const o = { ownerId: randomUUID(), pid: process.pid, host: hostname(), processStart: null, acquiredAt: Date.now() }
      registry().add(o.ownerId)
      owners.push(o.ownerId)
      return o
    },
  }
}
