/**
 * `logbook list [--limit 20] [--cursor <c>]` (spec 03 §6.2): one page of stored sessions, latest update first —
 * id, created, events, turns, title, parent — then `more: logbook list --cursor <c>` on stderr when more exist, or
 * `no stored sessions` on stderr when the page is empty.
 */

import { isSessionPersistenceError, type SessionSummary } from '@logbook/session-persistence'
import type { App } from '../app/app.ts'
import { expectPositionals, integerOption } from '../args.ts'
import { json, withApp, type Command } from '../command.ts'
import { oneLine, usageError } from '../errors.ts'
import { clip } from '../render/text.ts'

/** Default page size of `list`. */
export const DEFAULT_LIST_LIMIT = 20
/** Progress shows for more than this many sessions. */
const PROGRESS_THRESHOLD = 20

/** One listed session. */
export interface ListedSession {
  readonly id: string
  readonly created: string
  readonly events: number
  readonly turns: number | null
  readonly title: string | null
  readonly parent: string | null
}

/** One listed session: turns and title from the projections (`null` when they cannot be read). */
export async function describeSession(app: App, summary: SessionSummary): Promise<ListedSession> {
  let turns: number | null = null
  let title: string | null = null
  try {
    const snapshot = await app.projections()?.coldSnapshot(summary.id)
    const stats = snapshot?.values.stats as { turns?: unknown } | undefined
    if (typeof stats?.turns === 'number') turns = stats.turns
    const value = snapshot?.values.title
    if (typeof value === 'string') title = value
  } catch {
    // Turns and title are best effort (03 §6.2: `-` on failure); the listing itself stays valid.
  }
  return {
    id: summary.id,
    created: new Date(summary.header.createdAt).toISOString(),
    events: summary.eventCount,
    turns,
    title,
    parent: summary.header.parentSession ?? null,
  }
}

function table(rows: readonly (readonly string[])[]): string[] {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map(row => [...row[column]!].length)))
  return rows.map(row => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join('  ').trimEnd())
}

/** `list`. */
export const list: Command = async (context) => {
  const { args, output } = context
  expectPositionals(args, [])
  const limitText = args.options.limit
  const limit = typeof limitText === 'string' ? integerOption(limitText, 'limit', 1, 500) : DEFAULT_LIST_LIMIT
  const cursor = typeof args.options.cursor === 'string' ? args.options.cursor : undefined
  return withApp(context, async (app) => {
    const page = await app.persistence().list({ limit, ...(cursor === undefined ? {} : { cursor }) }).catch((error: unknown) => {
      // A cursor that is malformed or was issued for other filters is a bad argument (exit 2).
      if (cursor !== undefined && isSessionPersistenceError(error, 'INVALID_ARGUMENT')) throw usageError(`invalid --cursor: ${oneLine(error)}`)
      throw error
    })
    for (const problem of page.problems) {
      output.diag(`cannot list ${problem.sessionId ?? problem.location}: ${oneLine(problem.error)}`)
    }
    const progress = output.progress('list', 'sessions', page.items.length, PROGRESS_THRESHOLD)
    const items: ListedSession[] = []
    for (const summary of page.items) {
      items.push(await describeSession(app, summary))
      progress.tick(items.length)
    }
    progress.end()
    if (args.global.json) {
      output.line(json({ items, nextCursor: page.nextCursor }))
      return 0
    }
    if (items.length > 0) {
      const rows = [['ID', 'CREATED', 'EVENTS', 'TURNS', 'TITLE', 'PARENT']]
      for (const item of items) {
        rows.push([item.id, item.created, String(item.events), item.turns === null ? '-' : String(item.turns),
          item.title === null ? '-' : clip(item.title, 40), item.parent ?? '-'])
      }
      for (const row of table(rows)) output.line(row)
    } else {
      // stdout stays empty (scripts count its lines); a person at a terminal learns the store was read.
      output.note(cursor === undefined ? 'no stored sessions' : 'no more sessions after this cursor')
    }
    if (page.nextCursor !== null) output.note(`more: logbook list --cursor ${page.nextCursor}`)
    return 0
  })
}
