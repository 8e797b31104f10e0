/**
 * Storing imported sessions through the persistence seam, with the import rules: a session whose stored copy is the
 * same import (same tool, source id and leaf) is already imported and skipped — or, with `force`, replaced; an id
 * held by anything else is a conflict, refused before anything is written; only an earlier import of the same
 * source is ever replaced. Writes happen in plan order, and a failure deletes what this call created.
 */

import type { SessionHeader, SessionImportSource } from '@logbook/session'
import type { SessionPersistence, SessionSummary } from '@logbook/session-persistence'
import { InteropError } from './errors.ts'
import type { ImportedSession } from './types.ts'

/** What storing one imported session does. */
export type StoreAction = 'create' | 'replace' | 'skip'

/** One session and what storing it does; `existingId` names the stored copy a skip or replace refers to. */
export interface StorePlanEntry {
  readonly session: ImportedSession
  readonly action: StoreAction
  readonly existingId?: string
}

/** The stored sessions an import is checked against: by id, and by import identity; `storePlan` keeps it current. */
export interface StoredImports {
  readonly byId: Map<string, Pick<SessionSummary, 'id' | 'header' | 'revision'>>
  readonly byImport: Map<string, string>
}

/** The identity of an import: tool, source id and leaf. */
export function importKey(source: SessionImportSource | undefined): string | undefined {
  if (source === undefined) return undefined
  return JSON.stringify([source.tool, source.sourceId ?? null, source.leaf ?? null])
}

const sameSource = (a: SessionHeader, b: SessionHeader): boolean =>
  a.importedFrom !== undefined && a.importedFrom.tool === b.importedFrom?.tool && a.importedFrom.sourceId === b.importedFrom.sourceId

/** Every stored session of `persistence`, indexed by id and by import identity (one walk of the listing). */
export async function storedImports(persistence: SessionPersistence): Promise<StoredImports> {
  const byId: StoredImports['byId'] = new Map()
  const byImport = new Map<string, string>()
  let cursor: string | null = null
  do {
    const page: Awaited<ReturnType<SessionPersistence['list']>> = await persistence.list({ limit: 500, ...(cursor === null ? {} : { cursor }) })
    for (const item of page.items) {
      byId.set(item.id, item)
      const key = importKey(item.header.importedFrom)
      if (key !== undefined && !byImport.has(key)) byImport.set(key, item.id)
    }
    cursor = page.nextCursor
  } while (cursor !== null)
  return { byId, byImport }
}

function conflict(session: ImportedSession, stored: Pick<SessionSummary, 'header'>): InteropError {
  const id = session.header.id
  const source = stored.header.importedFrom
  if (sameSource(stored.header, session.header)) {
    return new InteropError('SESSION_ALREADY_EXISTS', `session "${id}" already exists: an earlier import of this source `
      + `ending at ${source?.leaf ?? 'another record'}; replace it with --force or import under another id with --as <id>`)
  }
  return new InteropError('SESSION_ALREADY_EXISTS', `session "${id}" already exists and is not an import of this source; `
    + 'import under another id with --as <id>')
}

/**
 * What storing `sessions` does against `stored`, decided before anything is written.
 * @throws InteropError `SESSION_ALREADY_EXISTS` for the first id held by something this import may not replace.
 */
export function planStore(sessions: readonly ImportedSession[], stored: StoredImports, options: { force?: boolean } = {}): StorePlanEntry[] {
  const force = options.force === true
  return sessions.map((session): StorePlanEntry => {
    const id = session.header.id
    const existing = stored.byId.get(id)
    const key = importKey(session.header.importedFrom)
    if (existing !== undefined) {
      const same = importKey(existing.header.importedFrom) === key
      if (same && !force) return { session, action: 'skip', existingId: id }
      if (same || (force && sameSource(existing.header, session.header))) return { session, action: 'replace', existingId: id }
      throw conflict(session, existing)
    }
    const elsewhere = key === undefined ? undefined : stored.byImport.get(key)
    if (elsewhere !== undefined && !force) return { session, action: 'skip', existingId: elsewhere }
    return { session, action: 'create' }
  })
}

async function create(persistence: SessionPersistence, session: ImportedSession): Promise<string> {
  const handle = await persistence.create(session.header)
  try {
    const { revision } = await handle.append(session.events)
    // An append of at least one event always produces a revision.
    return revision!
  } finally {
    await handle.close()
  }
}

/**
 * Carry out `plan`: delete what is replaced, then create each session (header and events in one durable append),
 * and record the new copies in `stored`. On a failure, the sessions this call created are deleted again and the
 * error is rethrown.
 * @throws the persistence errors of `delete`, `create` and `append` (`SESSION_ALREADY_EXISTS`, `SESSION_LOCKED`, …).
 */
export async function storePlan(persistence: SessionPersistence, plan: readonly StorePlanEntry[], stored: StoredImports): Promise<void> {
  const created: string[] = []
  try {
    for (const entry of plan) {
      if (entry.action === 'skip') continue
      const { header } = entry.session
      if (entry.action === 'replace') {
        const revision = stored.byId.get(header.id)!.revision
        await persistence.delete(header.id, { confirm: 'delete-session', sessionId: header.id, revision })
        stored.byId.delete(header.id)
      }
      const revision = await create(persistence, entry.session)
      created.push(header.id)
      stored.byId.set(header.id, { id: header.id, header, revision })
      const key = importKey(header.importedFrom)
      if (key !== undefined) stored.byImport.set(key, header.id)
    }
  } catch (error) {
    for (const id of created.reverse()) {
      try {
        const { revision } = await persistence.inspect(id)
        if (revision !== null) await persistence.delete(id, { confirm: 'delete-session', sessionId: id, revision })
      } catch {
        // Best effort: the original failure is what the caller needs to see.
      }
    }
    throw error
  }
}
