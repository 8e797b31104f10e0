/**
 * `logbook migrate (<id>… | --all) [--json]` (spec 03 §6.2, 02 §4.7): rewrite sessions of an older store format
 * (no checksums, or an older SQLite layout) in the current one, under write ownership. The original is kept beside the new artifact until the
 * user deletes it; a SQLite database migrates whole, so its first session migrates every other. A session already in
 * the current format is left alone; one that fails its checks is refused and reported, and the others go on.
 */

import { codeOf } from '@logbook/session'
import type { MigrateResult, SessionPersistence } from '@logbook/session-persistence'
import { json, sessionIdArg, withApp, type Command } from '../command.ts'
import { EXIT, exitCodeOf, oneLine, usageError } from '../errors.ts'

/**
 * Every stored id: the listed sessions and each one the listing reports as a problem (its migration is refused and
 * says why, rather than the session being left out silently).
 */
async function everyId(persistence: SessionPersistence): Promise<string[]> {
  const ids = new Set<string>()
  let cursor: string | null = null
  do {
    const page: Awaited<ReturnType<SessionPersistence['list']>> = await persistence.list({ limit: 500, ...(cursor === null ? {} : { cursor }) })
    for (const item of page.items) ids.add(item.id)
    for (const problem of page.problems) if (problem.sessionId !== undefined) ids.add(problem.sessionId)
    cursor = page.nextCursor
  } while (cursor !== null)
  return [...ids]
}

/** The line of one migration: what was rewritten and where the original is kept. */
function resultLine(result: MigrateResult): string {
  if (!result.migrated) return `${result.sessionId}  current (nothing to do)`
  const kept = result.original === undefined ? '' : `; original kept at ${result.original}`
  if (result.scope === 'store') return `${result.sessionId}  migrated with the whole store (${result.sessions.length} session${result.sessions.length === 1 ? '' : 's'})${kept}`
  return `${result.sessionId}  migrated${kept}`
}

/** `migrate`. Exit 0 when every session is current afterwards, else the worst failure's code. */
export const migrate: Command = async (context) => {
  const { args, output } = context
  const all = args.options.all === true
  if (all === (args.positionals.length > 0)) throw usageError('migrate needs <id>… or --all (not both)')
  const named = args.positionals.map(sessionIdArg)
  return withApp(context, async (app) => {
    const persistence = app.persistence()
    const ids = all ? await everyId(persistence) : named
    const migrated = new Set<string>()
    let code: number = EXIT.OK
    for (const id of ids) {
      // a store-wide migration already rewrote this one
      if (migrated.has(id)) continue
      try {
        const result = await persistence.migrate(id, { signal: context.signal })
        for (const session of result.sessions) migrated.add(session)
        output.line(args.global.json ? json(result) : resultLine(result))
      } catch (error) {
        if (context.signal.aborted) throw error
        output.error(`${id}: not migrated: ${oneLine(error)} [${codeOf(error) ?? 'ERROR'}]`)
        code = Math.max(code, exitCodeOf(error))
      }
    }
    if (ids.length === 0 && !args.global.json) output.line('no sessions')
    return code
  })
}
