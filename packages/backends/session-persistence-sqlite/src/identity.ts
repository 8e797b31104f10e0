/**
 * Store identity (02 §6 "Identity"): `application_id` 0x4C4F4742 ("LOGB"), `user_version` 1, and a schema equal
 * to the reference set in `resources/sql`. A pristine database (id 0, version 0, no objects) becomes a store at the
 * first write; anything else that is not exactly this store is refused.
 */

import { randomUUID } from 'node:crypto'
import type Database from 'better-sqlite3'
import { SessionPersistenceError } from '@logbook/session-persistence'
import { normaliseSql, SCHEMA_STATEMENTS, sql } from './sql.ts'

/** `application_id` of every Logbook SQLite store: the ASCII bytes "LOGB". */
export const LOGBOOK_APPLICATION_ID = 0x4c4f4742
/** `user_version` (schema layout) this build reads and writes; there are no migrations in v1. */
export const LOGBOOK_SCHEMA_VERSION = 1

/** What the identity check found: a pristine database, or a Logbook store with its id. */
export type StoreIdentity = { readonly kind: 'pristine' } | { readonly kind: 'store'; readonly storeId: string }

interface SchemaObject {
  readonly type: string
  readonly name: string
  readonly tbl_name: string
  readonly sql: string | null
}

let reference: ReadonlyMap<string, string> | undefined

/** Name → normalised SQL of every object the reference schema creates. */
function referenceSchema(): ReadonlyMap<string, string> {
  if (reference === undefined) {
    const map = new Map<string, string>()
    for (const name of SCHEMA_STATEMENTS) {
      const text = sql(name)
      const match = /^CREATE\s+(?:TABLE|INDEX)\s+(\w+)/i.exec(text)
      if (match === null) throw new Error(`resources/sql/${name}.sql is not a CREATE TABLE or CREATE INDEX statement`)
      map.set(match[1]!, normaliseSql(text))
    }
    reference = map
  }
  return reference
}

const incompatible = (path: string, message: string, details: Record<string, unknown>): SessionPersistenceError =>
  new SessionPersistenceError('STORE_INCOMPATIBLE', `store ${path}: ${message}`, { location: path, details })

/**
 * Check the identity of the open database; call it inside a transaction so the answer cannot change underneath.
 * @throws SessionPersistenceError `STORE_FOREIGN` (not a Logbook store), `STORE_INCOMPATIBLE` (other layout version,
 * with `details.direction`, or objects that differ from the reference schema).
 */
export function checkIdentity(db: Database.Database, path: string): StoreIdentity {
  const applicationId = db.pragma('application_id', { simple: true }) as number
  const userVersion = db.pragma('user_version', { simple: true }) as number
  const objects = (db.prepare(sql('count-schema-objects')).get() as { n: number }).n
  if (applicationId === 0 && userVersion === 0 && objects === 0) return { kind: 'pristine' }
  if (applicationId !== LOGBOOK_APPLICATION_ID) {
    throw new SessionPersistenceError(
      'STORE_FOREIGN',
      `store ${path} is not a Logbook store (application_id ${applicationId}, ${objects} schema objects)`,
      { location: path, details: { applicationId, userVersion } },
    )
  }
  if (userVersion !== LOGBOOK_SCHEMA_VERSION) {
    const direction = userVersion > LOGBOOK_SCHEMA_VERSION ? 'newer' : 'older'
    const message = direction === 'newer'
      ? `written by a newer Logbook (schema version ${userVersion}, this build reads ${LOGBOOK_SCHEMA_VERSION}): upgrade Logbook`
      : `schema version ${userVersion}, older than ${LOGBOOK_SCHEMA_VERSION}; there is no upgrade path`
    throw incompatible(path, message, { direction, found: userVersion, supported: LOGBOOK_SCHEMA_VERSION })
  }
  checkSchemaObjects(db, path)
  const row = db.prepare(sql('select-store')).get() as { store_id: unknown } | undefined
  if (row === undefined || typeof row.store_id !== 'string' || row.store_id === '') {
    throw incompatible(path, 'the logbook_store row is missing', { object: 'logbook_store' })
  }
  return { kind: 'store', storeId: row.store_id }
}

/** Compare every stored table, index, trigger and view with the reference set, exactly. */
function checkSchemaObjects(db: Database.Database, path: string): void {
  const expected = referenceSchema()
  const found = db.prepare(sql('select-schema-objects')).all() as SchemaObject[]
  const seen = new Set<string>()
  for (const object of found) {
    const wanted = expected.get(object.name)
    if (wanted === undefined) {
      throw incompatible(path, `unexpected ${object.type} ${object.name}`, { object: object.name })
    }
    if (object.sql === null || normaliseSql(object.sql) !== wanted) {
      throw incompatible(path, `${object.type} ${object.name} differs from this build's schema`, { object: object.name })
    }
    seen.add(object.name)
  }
  for (const name of expected.keys()) {
    if (!seen.has(name)) throw incompatible(path, `missing schema object ${name}`, { object: name })
  }
}

/**
 * Turn a pristine database into a store: the reference schema, the identity pragmas and a store row with a fresh
 * UUID. Call it inside the `BEGIN IMMEDIATE` transaction that re-checked the database is pristine.
 */
export function createSchema(db: Database.Database, now: number): string {
  for (const name of SCHEMA_STATEMENTS) db.prepare(sql(name)).run()
  db.pragma(`application_id = ${LOGBOOK_APPLICATION_ID}`)
  db.pragma(`user_version = ${LOGBOOK_SCHEMA_VERSION}`)
  const storeId = randomUUID()
  db.prepare(sql('insert-store')).run({ storeId, createdAt: now })
  return storeId
}
