/**
 * Test fixtures built in-process: temporary directories, the embedded app on a JSONL store, and stored sessions
 * written straight through the persistence seam.
 */

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SESSION_FORMAT_VERSION, type SessionEvent, type SessionHeader } from '@logbook/session'
import { afterAll } from 'vitest'
import type { App } from '../../src/app/app.ts'
import { openEmbeddedApp, type EmbeddedStore } from '../../src/app/embedded.ts'
import { Output } from '../../src/io.ts'

const created: string[] = []
afterAll(() => {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** A fresh temporary directory, removed after the file's tests. */
export function tempDir(prefix = 'logbook-cli-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  created.push(dir)
  return dir
}

/** What the in-process app logged to stderr. */
export const appLog: string[] = []

/** Run `body` with the embedded app on the JSONL store at `root` (or on `store`), disposing it afterwards. */
export async function withStore<T>(root: string | EmbeddedStore, body: (app: App) => Promise<T>): Promise<T> {
  const sink = { write: (text: string) => appLog.push(text) }
  const output = new Output({ stdout: sink, stderr: sink, env: {} }, { quiet: false, progress: false, noColor: true })
  const app = await openEmbeddedApp(typeof root === 'string' ? { kind: 'jsonl', root } : root, output)
  try {
    return await body(app)
  } finally {
    await app.dispose()
  }
}

/** Store `events` under `id` as a new session (header `createdAt` = the first event's time). */
export async function storeEvents(app: App, id: string, events: readonly SessionEvent[], header: Partial<SessionHeader> = {}): Promise<void> {
  const full = { version: SESSION_FORMAT_VERSION, id, createdAt: events[0]?.time ?? 0, ...header } as SessionHeader
  const handle = await app.persistence().create(full)
  try {
    await handle.append(events)
  } finally {
    await handle.close()
  }
}

/** One complete turn: start, user text, one step with a text reply, end. */
export function turnEvents(first: number, turn: number, time: number, text: string, options: { open?: boolean } = {}): SessionEvent[] {
  const events = [
    { type: 'turn/start', seq: first, time, data: { turn } },
    { type: 'user/message', seq: first + 1, time, data: { id: `user-${first + 1}`, role: 'user', source: { kind: 'user' }, content: [{ type: 'text', text }] }, surfaceOp: 'append' },
    { type: 'step/start', seq: first + 2, time, data: { turn, step: 1 } },
    {
      type: 'assistant/message', seq: first + 3, time,
      data: { turn, step: 1, message: { id: `assistant-${first + 3}`, role: 'assistant', source: { kind: 'model', provider: 'scripted', model: 'demo' }, content: [{ type: 'text', text: `re: ${text}` }] } },
      surfaceOp: 'append', sourceEventSeqs: [],
    },
    { type: 'step/end', seq: first + 4, time, data: { turn, step: 1 } },
    { type: 'turn/end', seq: first + 5, time, data: { turn, reason: { kind: 'completed' } } },
  ]
  return (options.open === true ? events.slice(0, 5) : events) as unknown as SessionEvent[]
}
