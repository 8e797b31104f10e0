/**
 * One B11 measurement in a fresh process (see B11-common.ts): `B11-child.ts <durable|memory> <backend> <dir>
 * <sessions>` writes W shared out over `sessions` live sessions concurrently and prints the figures as one JSON line.
 * `durable` mounts the backend with its durable settings (JSONL `fsync`, SQLite `synchronous: full`); `memory` mounts
 * no persistence plugin, so a flush settles at once (the ceiling).
 */

import { Context, symbols, type Fiber } from '@deepseek-ai/cordis'
import SessionStore from '@logbook/session'
import { shareOfW, writeConcurrently, type B11Run } from './B11-common.ts'
import { backendKind, mount } from './persistence-store.ts'

/** The SQLite service's commit count, when the mounted backend has one. */
type Commits = { readonly commits?: number }

async function main(): Promise<B11Run> {
  const [mode, kindArg, dir, countArg] = process.argv.slice(2)
  const kind = backendKind(kindArg)
  const count = Number(countArg)
  if (dir === undefined || !Number.isSafeInteger(count) || count < 1) throw new Error('usage: B11-child.ts <durable|memory> <backend> <dir> <sessions>')
  const inputs = shareOfW(count)
  if (mode === 'memory') {
    const app = new Context()
    const store: Fiber = app.plugin(SessionStore)
    await store
    const run = await writeConcurrently(app.get('sessions') as SessionStore, inputs, () => null)
    await store.dispose()
    return run
  }
  if (mode !== 'durable') throw new Error(`unknown mode ${mode}`)
  const m = await mount(kind, dir, { durable: true })
  // The count is read at every flush to find the rounds: on the service object itself, since each property read
  // through Cordis's service proxy builds a shadow context (a few µs), which the ceiling run does not pay.
  const proxied = m.persistence as unknown as Commits & { readonly [symbols.original]?: Commits }
  const persistence = proxied[symbols.original] ?? proxied
  const run = await writeConcurrently(m.sessions, inputs, () => persistence.commits ?? null)
  await m.stop()
  return run
}

process.stdout.write(`${JSON.stringify(await main())}\n`)
