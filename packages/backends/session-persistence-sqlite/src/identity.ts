/**
 * Store identity (02 §6 "Identity"): `application_id` 0x4C4F4742 ("LOGB"), `user_version` 1 (no checksums), 2 (a
 * `crc` on every header and event row) or 3 (the same rows, `logbook_events` a rowid table), and a schema equal to
 * the reference set of that version. Only `:memory:` starts pristine; a file becomes a store when this backend creates
 * it (create-store.ts), and anything else that is not exactly a store of a version this build reads is refused.
 */

import { randomUUID } from 'node:crypto'
import Database from 'better-sqlite3'
import { SessionPersistenceError } from '@logbook/session-persistence'
import { MIGRATION_V2_STATEMENTS, MIGRATION_V3_STATEMENTS, normaliseSql, SCHEMA_STATEMENTS, sql, type StatementName } from './sql.ts'

/** `application_id` of every Logbook SQLite store: the ASCII bytes "LOGB". */
export const LOGBOOK_APPLICATION_ID = 0x4c4f4742
/** `user_version` this build writes: checksums on every record, event rows in insertion order. */
export const LOGBOOK_SCHEMA_VERSION = 3
/** The oldest `user_version` this build reads (written the old way until `migrate`). */
export const OLDEST_SCHEMA_VERSION = 1
/** A schema version this build reads. */
export type SchemaVersion = 1 | 2 | 3

/** What the identity check found: a pristine `:memory:` database, or a Logbook store with its id and version. */
export type StoreIdentity =
  | { readonly kind: 'pristine' }
  | { readonly kind: 'store'; readonly storeId: string; readonly version: SchemaVersion }

interface SchemaObject {
  readonly type: string
  readonly name: string
  readonly tbl_name: string
  readonly sql: string | null
}

/** The DDL that takes the schema of `from` to that of `to` (from 0: builds it), in order. */
export function schemaSteps(to: SchemaVersion, from = 0): readonly StatementName[] {
  return [
    ...(from < 1 ? SCHEMA_STATEMENTS : []),
    ...(from < 2 && to >= 2 ? MIGRATION_V2_STATEMENTS : []),
    ...(from < 3 && to >= 3 ? MIGRATION_V3_STATEMENTS : []),
  ]
}

const references = new Map<SchemaVersion, ReadonlyMap<string, string>>()

/** Name → normalised stored SQL of every object of the `version` schema, read back from a scratch database. */
function referenceSchema(version: SchemaVersion): ReadonlyMap<string, string> {
  let reference = references.get(version)
  if (reference === undefined) {
    const scratch = new Database(':memory:')
    try {
      for (const name of schemaSteps(version)) scratch.exec(sql(name))
      const objects = scratch.prepare(sql('select-schema-objects')).all() as SchemaObject[]
      reference = new Map(objects.map(o => [o.name, normaliseSql(o.sql ?? '')]))
    } finally {
      scratch.close()
    }
    references.set(version, reference)
  }
  return reference
}

const incompatible = (path: string, message: string, details: Record<string, unknown>): SessionPersistenceError =>
  new SessionPersistenceError('STORE_INCOMPATIBLE', `store ${path}: ${message}`, { location: path, details })

/** `STORE_FOREIGN` naming the file: `store <path> is not a Logbook store (<why>)`. */
export function foreignStore(path: string, why: string, details: Record<string, unknown> = {}): SessionPersistenceError {
  return new SessionPersistenceError('STORE_FOREIGN', `store ${path} is not a Logbook store (${why})`, { location: path, details })
}

/**
 * Check the identity of the open database (read-only or not); call it inside a transaction so the answer cannot
 * change underneath. `allowPristine` only for `:memory:`.
 * @throws SessionPersistenceError `STORE_FOREIGN` (not a Logbook store), `STORE_INCOMPATIBLE` (a version this build
 * does not read, with `details.direction`, or objects that differ from the reference schema).
 */
export function checkIdentity(db: Database.Database, path: string, allowPristine = false): StoreIdentity {
  const applicationId = db.pragma('application_id', { simple: true }) as number
  const userVersion = db.pragma('user_version', { simple: true }) as number
  const objects = (db.prepare(sql('count-schema-objects')).get() as { n: number }).n
  if (applicationId === 0 && userVersion === 0 && objects === 0) {
    if (allowPristine) return { kind: 'pristine' }
    throw foreignStore(path, 'an empty SQLite database Logbook did not create', { applicationId, userVersion })
  }
  if (applicationId !== LOGBOOK_APPLICATION_ID) {
    throw foreignStore(path, `application_id ${applicationId}, ${objects} schema objects`, { applicationId, userVersion })
  }
  if (userVersion < OLDEST_SCHEMA_VERSION || userVersion > LOGBOOK_SCHEMA_VERSION) {
    const direction = userVersion > LOGBOOK_SCHEMA_VERSION ? 'newer' : 'older'
    const message = direction === 'newer'
      ? `written by a newer Logbook (schema version ${userVersion}, this build reads ${LOGBOOK_SCHEMA_VERSION}): upgrade Logbook`
      : `schema version ${userVersion}, older than ${OLDEST_SCHEMA_VERSION}; there is no upgrade path`
    throw incompatible(path, message, { direction, found: userVersion, supported: LOGBOOK_SCHEMA_VERSION })
  }
  checkSchemaObjects(db, path, userVersion as SchemaVersion)
  const row = db.prepare(sql('select-store')).get() as { store_id: unknown } | undefined
  if (row === undefined || typeof row.store_id !== 'string' || row.store_id === '') {
    throw incompatible(path, 'the logbook_store row is missing', { object: 'logbook_store' })
  }
  return { kind: 'store', storeId: row.store_id, version: userVersion as SchemaVersion }
}

/** Compare every stored table, index, trigger and view with the reference set of `version`, exactly. */
function checkSchemaObjects(db: Database.Database, path: string, version: SchemaVersion): void {
  const expected = referenceSchema(version)
  const found = db.prepare(sql('select-schema-objects')).all() as SchemaObject[]
  const seen = new Set<string>()
  for (const object of found) {
    const wanted = expected.get(object.name)
    if (wanted === undefined) {
      throw incompatible(path, `unexpected ${object.type} ${object.name}`, { object: object.name })
    }
    if (object.sql === null || normaliseSql(object.sql) !== wanted) {
      throw incompatible(path, `${object.type} ${object.name} differs from this build's schema (version ${version})`, { object: object.name })
    }
    seen.add(object.name)
  }
  for (const name of expected.keys()) {
    if (!seen.has(name)) throw incompatible(path, `missing schema object ${name}`, { object: name })
  }
}

/**
 * Turn a pristine database into a store of the current version: the reference schema, the identity pragmas and a
 * store row with a fresh UUID. Call it inside a `BEGIN IMMEDIATE` transaction on a database nobody else can see yet
 * (a file being created, or `:memory:`).
 */
export function createSchema(db: Database.Database, now: number): string {
  for (const name of schemaSteps(LOGBOOK_SCHEMA_VERSION)) db.prepare(sql(name)).run()
  db.pragma(`application_id = ${LOGBOOK_APPLICATION_ID}`)
  db.pragma(`user_version = ${LOGBOOK_SCHEMA_VERSION}`)
  const storeId = randomUUID()
  db.prepare(sql('insert-store')).run({ storeId, createdAt: now })
  return storeId
}

/**
 * Take a store of schema version `from` to the current one — add the `crc` columns (from 1; they are left for the
 * caller to fill), then rebuild `logbook_events` as a rowid table (from 1 or 2) — and mark it current; call inside
 * the migration transaction.
 */
export function upgradeSchema(db: Database.Database, from: SchemaVersion): void {
  for (const name of schemaSteps(LOGBOOK_SCHEMA_VERSION, from)) db.prepare(sql(name)).run()
  db.pragma(`user_version = ${LOGBOOK_SCHEMA_VERSION}`)
}
