/**
 * Group commit under SIGKILL (P-158): a child writes 8 live sessions whose flushes share group transactions and is
 * killed at seeded points; every acknowledged flush must be stored, and each session's log must be a contiguous
 * prefix of what it appended, ending at a flush. `LOGBOOK_CRASH_SEED` replays a run.
 */

import { fork } from 'node:child_process'
import { rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { expect, it } from 'vitest'
import { Context } from '@deepseek-ai/cordis'
import SessionStore, { type SessionEvent } from '@logbook/session'
import type { SessionPersistence } from '@logbook/session-persistence'
import SqliteSessionPersistence from '../src/index.ts'
import { tempDir } from './fixture.ts'
import { GROUP_SESSIONS, groupTurn } from './group-commit-script.ts'

const KILLS = 6
const seed = Number(process.env['LOGBOOK_CRASH_SEED'] ?? Math.floor(Math.random() * 2 ** 31))
const childPath = fileURLToPath(new URL('./group-commit-child.ts', import.meta.url))
const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href

/** mulberry32: the seeded kill points. */
function random(state: number): (min: number, max: number) => number {
  let a = state >>> 0
  return (min, max) => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = Math.imul(a ^ (a >>> 15), a | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return min + Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * (max - min + 1))
  }
}

/**
 * Run the child on `path` until `acks` flushes resolved, wait `delayMs`, SIGKILL it; returns the acked seq per id and
 * the child's commit count at the `acks`-th acknowledgement.
 */
async function runAndKill(path: string, acks: number, delayMs: number): Promise<{ acked: Map<string, number>; commits: number }> {
  const child = fork(childPath, [path], { execArgv: ['--conditions=source', '--import', tsxLoader], stdio: ['ignore', 'ignore', 'pipe', 'ipc'] })
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  const acked = new Map<string, number>()
  let commits = 0
  const exited = new Promise<void>(resolve => child.on('exit', () => resolve()))
  await new Promise<void>((resolve, reject) => {
    let seen = 0
    child.on('message', (message: { id?: string; seq?: number; commits?: number }) => {
      if (message.id === undefined || message.seq === undefined) return
      acked.set(message.id, Math.max(acked.get(message.id) ?? 0, message.seq))
      if (++seen === acks) {
        commits = message.commits ?? 0
        setTimeout(resolve, delayMs)
      }
    })
    void exited.then(() => reject(new Error(`child exited before ${acks} acknowledgements:\n${stderr}`)))
  })
  child.kill('SIGKILL')
  await exited
  return { acked, commits }
}

/** The events of `id` as stored, read through a fresh instance (read mode: the dead child's leases do not matter). */
async function storedEvents(persistence: SessionPersistence, id: string): Promise<readonly SessionEvent[]> {
  try {
    const handle = await persistence.open(id, 'read')
    return await handle.read(0)
  } catch (error) {
    if ((error as { code?: unknown }).code === 'SESSION_NOT_FOUND') return []
    throw error
  }
}

it(`P-158 SIGKILL of a child whose 8 live sessions share group commits (${KILLS} seeded kills): every acknowledged flush stored, each log a prefix ending at a flush (seed ${seed})`, async () => {
  const next = random(seed)
  for (let kill = 0; kill < KILLS; kill++) {
    const dir = tempDir()
    const path = join(dir, 'logbook.sqlite')
    try {
      const acks = next(2 * GROUP_SESSIONS, 12 * GROUP_SESSIONS)
      const delay = next(0, 15)
      const { acked, commits } = await runAndKill(path, acks, delay)
      const where = `seed ${seed} kill ${kill} (after ${acks} acks + ${delay} ms)`
      // The flushes did share transactions: fewer commits (the 8 leases included) than acknowledged flushes.
      expect(commits, `${where}: commits`).toBeLessThan(acks)
      const app = new Context()
      await app.plugin(SessionStore)
      const fiber = app.plugin(SqliteSessionPersistence, { path })
      await fiber
      try {
        const persistence = app.get('sessionPersistence') as SessionPersistence
        for (let i = 0; i < GROUP_SESSIONS; i++) {
          const id = `g-${i}`
          const events = await storedEvents(persistence, id)
          expect(events.length, `${where}: ${id} lost acknowledged events`).toBeGreaterThanOrEqual(acked.get(id) ?? 0)
          const expected: { type: string; data: unknown }[] = []
          while (expected.length < events.length) expected.push(...groupTurn(i, expected.filter(e => e.type === 'turn/start').length + 1))
          expect(expected.length, `${where}: ${id} ends inside a flush`).toBe(events.length)
          expect(events.map(e => ({ type: e.type, data: e.data })), `${where}: ${id}`).toEqual(expected)
          expect(events.map(e => e.seq), `${where}: ${id} seqs`).toEqual(events.map((_, seq) => seq))
        }
      } finally {
        await fiber.dispose()
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }
}, 300_000)
