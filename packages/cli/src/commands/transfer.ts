/**
 * `logbook transfer --to <cordis.yml> [<id>…|--all]`: copy stored sessions from the current backend (`--config`,
 * else the embedded JSONL store) to the backend another `cordis.yml` configures — JSONL, SQLite or PostgreSQL, in
 * any direction. Each session is read in read mode, stored under the same id with the same header and events
 * (and its projection checkpoint), then read back and compared; a session already in the destination with the same
 * content is skipped, one with other content is refused and left alone. Prints one line per session.
 */

import { resolve } from 'node:path'
import type { SessionEvent, SessionHeader } from '@logbook/session'
import { isSessionPersistenceError, type SessionPersistence } from '@logbook/session-persistence'
import type { App } from '../app/app.ts'
import { sessionIdArg, withApp, type Command } from '../command.ts'
import { EXIT, oneLine, usageError } from '../errors.ts'
import { readStored, type StoredSession } from './stored.ts'

/** JSON with object keys sorted, so two stores that keep keys in different orders compare equal. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value).sort().map(key => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`)
    return `{${entries.join(',')}}`
  }
  return JSON.stringify(value)
}

/** Why `copy` differs from `original` (header, event count or the first differing event), or `undefined`. */
export function storedDifference(original: StoredSession, copy: StoredSession): string | undefined {
  if (canonicalJson(original.header) !== canonicalJson(copy.header)) return 'the header differs'
  if (original.events.length !== copy.events.length) return `it holds ${copy.events.length} events, not ${original.events.length}`
  for (let i = 0; i < original.events.length; i++) {
    if (canonicalJson(original.events[i]) !== canonicalJson(copy.events[i])) return `event ${i} differs`
  }
  return undefined
}

/** Every stored id of `persistence`, walking all pages. */
async function allIds(persistence: SessionPersistence): Promise<string[]> {
  const ids: string[] = []
  let cursor: string | undefined
  do {
    const page = await persistence.list({ limit: 500, ...(cursor === undefined ? {} : { cursor }) })
    ids.push(...page.items.map(item => item.id))
    cursor = page.nextCursor ?? undefined
  } while (cursor !== undefined)
  return ids
}

/** The destination's copy of `id`, or `undefined` when it has none. */
async function existing(persistence: SessionPersistence, id: string): Promise<StoredSession | undefined> {
  try {
    return await readStored(persistence, id)
  } catch (error) {
    if (isSessionPersistenceError(error, 'SESSION_NOT_FOUND')) return undefined
    throw error
  }
}

type Outcome = { readonly kind: 'copied' | 'skipped'; readonly events: number } | { readonly kind: 'failed'; readonly why: string }

/** Copy one session from `source` to `target`, verified; never touches a copy that is already there. */
async function transferOne(source: App, target: App, id: string): Promise<Outcome> {
  const from = source.persistence()
  const to = target.persistence()
  const original = await readStored(from, id)
  const present = await existing(to, id)
  if (present !== undefined) {
    const difference = storedDifference(original, present)
    return difference === undefined
      ? { kind: 'skipped', events: present.events.length }
      : { kind: 'failed', why: `the destination already holds a different session "${id}" (${difference}); left as it is` }
  }
  if (original.events.length === 0) return { kind: 'failed', why: 'it holds no events, and a session without events is never stored' }
  const checkpoint = await from.readProjectionCheckpoint(id)
  const handle = await to.create(original.header as SessionHeader)
  try {
    await handle.append(original.events as SessionEvent[])
    if (checkpoint !== undefined) await to.writeProjectionCheckpoint(id, checkpoint)
  } finally {
    await handle.close()
  }
  const difference = storedDifference(original, await readStored(to, id))
  if (difference !== undefined) return { kind: 'failed', why: `the copy does not read back equal (${difference})` }
  return { kind: 'copied', events: original.events.length }
}

/** `transfer`. */
export const transfer: Command = async (context) => {
  const { args, output } = context
  const to = args.options.to
  if (typeof to !== 'string') throw usageError('transfer needs --to <cordis.yml>')
  const all = args.options.all === true
  if (all && args.positionals.length > 0) throw usageError('transfer takes <id>… or --all, not both')
  if (!all && args.positionals.length === 0) throw usageError('transfer needs <id>… or --all')
  const wanted = args.positionals.map(sessionIdArg)
  const { bootConfigApp } = await import('../app/boot.ts')
  return withApp(context, async (source) => {
    const target = await bootConfigApp(resolve(context.cwd, to), output)
    const untrack = context.track(target)
    try {
      let failed = 0
      for (const id of all ? await allIds(source.persistence()) : wanted) {
        let outcome: Outcome
        try {
          outcome = await transferOne(source, target, id)
        } catch (error) {
          outcome = { kind: 'failed', why: oneLine(error) }
        }
        if (outcome.kind === 'failed') {
          failed++
          output.error(`${id}: not transferred: ${outcome.why}`)
        } else {
          output.line(`${id}\t${outcome.kind} (${outcome.events} events)`)
        }
      }
      return failed === 0 ? EXIT.OK : EXIT.FAILURE
    } finally {
      untrack()
      await target.dispose()
    }
  })
}
