/**
 * `@logbook/session-persistence-jsonl/invariant` (02 §8): after every `persistence/committed` of a JSONL store, the
 * session file's size equals the committed `physicalLength` and the lock file names the committing `ownerId`.
 * Commits are observed after the fact, so a violation is logged at error level (`<name>: <detail>`), not vetoed.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import type { Context } from '@deepseek-ai/cordis'
import type { PersistenceCommittedEvent } from '@logbook/session-persistence'
import JsonlSessionPersistence from './index.ts'
import { encodeId, isReservedName, SESSION_FILE, StoreLayout } from './layout.ts'
import { parseLockRecord } from './lock-file.ts'

/** Plugin name of the companion. */
export const name = 'session-persistence-jsonl-invariant'
/** Services the companion observes. */
export const inject = ['sessions', 'sessionPersistence']

/** The first violated relation for one commit, or undefined. Reads the store synchronously (the commit just ended). */
export function checkCommit(root: string, event: PersistenceCommittedEvent): string | undefined {
  const layout = new StoreLayout(root)
  const encoded = encodeId(event.sessionId)
  const files: string[] = []
  for (const project of readdirSync(root)) {
    if (isReservedName(project)) continue
    const file = join(root, project, encoded, SESSION_FILE)
    try {
      if (statSync(file).isFile()) files.push(file)
    } catch {
      // not stored in this project directory
    }
  }
  if (files.length !== 1) return `session "${event.sessionId}": ${files.length} session files after a commit`
  const size = statSync(files[0] as string).size
  if (size !== event.physicalLength) {
    return `session "${event.sessionId}": file size ${size} ≠ committed physicalLength ${event.physicalLength}`
  }
  let owner: string | null | undefined
  try {
    owner = parseLockRecord(readFileSync(layout.lockFile(event.sessionId), 'utf8'))?.ownerId ?? null
  } catch {
    owner = undefined
  }
  if (owner !== event.ownerId) {
    return `session "${event.sessionId}": lock names ${owner === undefined ? 'nobody' : owner ?? 'an unparsable owner'}, not committing owner ${event.ownerId}`
  }
  return undefined
}

/** Registers the post-commit check; inactive when `ctx.sessionPersistence` is not a JSONL store. */
export function apply(ctx: Context): void {
  const logger = ctx.logger(name)
  ctx.on('persistence/committed', (event) => {
    const service = ctx.sessionPersistence
    if (!(service instanceof JsonlSessionPersistence)) return
    let problem: string | undefined
    try {
      problem = checkCommit(service.root, event)
    } catch (error) {
      problem = `session "${event.sessionId}": check failed: ${(error as Error).message}`
    }
    if (problem !== undefined) logger.error(`${name}: ${problem}`)
  })
}
