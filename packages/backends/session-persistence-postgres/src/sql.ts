/**
 * Every SQL statement of the backend, for one configured schema (quoted once here; values are always bound).
 * The five tables: `logbook_store` (identity and schema version), `logbook_sessions` (header row), `logbook_events`
 * (one row per record, primary key `(session_id, seq)`), `logbook_leases` (one write lease per session) and
 * `logbook_projection_checkpoints`. Ids use the `"C"` collation, so `ORDER BY id` is UTF-8 byte order.
 */

/** Event-row kinds (a scalar event or a chunk-row tag). */
export const ROW_KINDS = ['event', 'text-chunks', 'reasoning-chunks', 'tool-call-chunks'] as const

/** Most event rows one `INSERT` carries (8 bound values each, under PostgreSQL's 65,535). */
export const ROWS_PER_STATEMENT = 4096

/** The reference columns of every table, as `information_schema.columns` reports them (name, type, nullable). */
export const REFERENCE_COLUMNS: Readonly<Record<string, readonly (readonly [string, string, 'YES' | 'NO'])[]>> = {
  logbook_store: [['singleton', 'smallint', 'NO'], ['store_id', 'text', 'NO'], ['schema_version', 'integer', 'NO'], ['created_at', 'bigint', 'NO']],
  logbook_sessions: [
    ['id', 'text', 'NO'], ['version', 'integer', 'NO'], ['created_at', 'bigint', 'NO'], ['cwd', 'text', 'YES'],
    ['parent_session', 'text', 'YES'], ['header', 'text', 'NO'], ['incarnation', 'text', 'NO'], ['next_seq', 'bigint', 'NO'],
    ['updated_at', 'bigint', 'NO'], ['revision', 'bigint', 'NO'], ['crc', 'bigint', 'NO'],
  ],
  logbook_events: [
    ['session_id', 'text', 'NO'], ['seq', 'bigint', 'NO'], ['last_seq', 'bigint', 'NO'], ['kind', 'text', 'NO'],
    ['type', 'text', 'NO'], ['time', 'bigint', 'NO'], ['body', 'text', 'NO'], ['crc', 'bigint', 'NO'],
  ],
  logbook_leases: [
    ['session_id', 'text', 'NO'], ['owner_id', 'text', 'NO'], ['pid', 'integer', 'NO'], ['host', 'text', 'NO'],
    ['process_start', 'text', 'YES'], ['acquired_at', 'bigint', 'NO'], ['token', 'text', 'NO'],
    ['expires_at', 'timestamp with time zone', 'NO'],
  ],
  logbook_projection_checkpoints: [['session_id', 'text', 'NO'], ['seq', 'bigint', 'NO'], ['body', 'text', 'NO'], ['crc', 'bigint', 'NO']],
}

/** A quoted SQL identifier. */
export const ident = (name: string): string => `"${name.replace(/"/g, '""')}"`

const SESSION_COLUMNS = 'id, version, created_at, cwd, parent_session, header, incarnation, next_seq, updated_at, revision, crc'
const LEASE_COLUMNS = 'owner_id, pid, host, process_start, acquired_at, token'

/** The statements of one schema. */
export class Statements {
  readonly schema: string
  /** Schema-qualified table names. */
  readonly store: string
  readonly sessions: string
  readonly events: string
  readonly leases: string
  readonly checkpoints: string

  constructor(schema: string) {
    this.schema = schema
    const s = ident(schema)
    this.store = `${s}.logbook_store`
    this.sessions = `${s}.logbook_sessions`
    this.events = `${s}.logbook_events`
    this.leases = `${s}.logbook_leases`
    this.checkpoints = `${s}.logbook_projection_checkpoints`
  }

  /**
   * The current schema version, created in one transaction (after `CREATE SCHEMA IF NOT EXISTS`). Event rows carry
   * no foreign key to their session row: the fence already requires that row (and locks it) in every write, and
   * a foreign key's check per inserted row cost a fenced append more than any other part of its statement.
   */
  create(): string[] {
    const kinds = ROW_KINDS.map(kind => `'${kind}'`).join(', ')
    return [
      `CREATE SCHEMA IF NOT EXISTS ${ident(this.schema)}`,
      `CREATE TABLE ${this.store} (singleton smallint PRIMARY KEY CHECK (singleton = 1), store_id text NOT NULL,
        schema_version integer NOT NULL, created_at bigint NOT NULL)`,
      `CREATE TABLE ${this.sessions} (id text COLLATE "C" PRIMARY KEY, version integer NOT NULL, created_at bigint NOT NULL,
        cwd text, parent_session text, header text NOT NULL, incarnation text NOT NULL, next_seq bigint NOT NULL,
        updated_at bigint NOT NULL, revision bigint NOT NULL, crc bigint NOT NULL)`,
      `CREATE TABLE ${this.events} (session_id text COLLATE "C" NOT NULL,
        seq bigint NOT NULL, last_seq bigint NOT NULL, kind text NOT NULL CHECK (kind IN (${kinds})), type text NOT NULL,
        time bigint NOT NULL, body text NOT NULL, crc bigint NOT NULL, PRIMARY KEY (session_id, seq))`,
      `CREATE TABLE ${this.leases} (session_id text COLLATE "C" PRIMARY KEY, owner_id text NOT NULL, pid integer NOT NULL,
        host text NOT NULL, process_start text, acquired_at bigint NOT NULL, token text NOT NULL, expires_at timestamptz NOT NULL)`,
      `CREATE TABLE ${this.checkpoints} (session_id text COLLATE "C" PRIMARY KEY REFERENCES ${this.sessions} (id) ON DELETE CASCADE,
        seq bigint NOT NULL, body text NOT NULL, crc bigint NOT NULL)`,
      `CREATE INDEX logbook_sessions_by_update ON ${this.sessions} (updated_at DESC, id)`,
      `CREATE INDEX logbook_sessions_by_parent ON ${this.sessions} (parent_session)`,
      `CREATE INDEX logbook_sessions_by_cwd ON ${this.sessions} (cwd)`,
    ]
  }

  readonly advisoryLock = 'SELECT pg_advisory_xact_lock(hashtext($1))'
  readonly serverEncoding = 'SELECT current_setting(\'server_encoding\') AS encoding'
  readonly columns = `SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns
    WHERE table_schema = $1 AND table_name LIKE 'logbook\\_%' ORDER BY table_name, ordinal_position`

  get selectStore(): string {
    return `SELECT store_id, schema_version FROM ${this.store} WHERE singleton = 1`
  }

  get insertStore(): string {
    return `INSERT INTO ${this.store} (singleton, store_id, schema_version, created_at) VALUES (1, $1, $2, $3)`
  }

  get selectSession(): string {
    return `SELECT ${SESSION_COLUMNS} FROM ${this.sessions} WHERE id = $1`
  }

  get insertSession(): string {
    return `INSERT INTO ${this.sessions} (${SESSION_COLUMNS})
      VALUES ($1, $2, $3, $4, $5, $6, $7, 0, $3, 0, $8) ON CONFLICT (id) DO NOTHING RETURNING id`
  }

  get sessionExists(): string {
    return `SELECT 1 FROM ${this.sessions} WHERE id = $1`
  }

  /** Rows of one session from `$2` on whose last seq reaches `$3`, in seq order (rowMode array). */
  get selectEvents(): string {
    return `SELECT seq, last_seq, kind, type, time, body, crc FROM ${this.events}
      WHERE session_id = $1 AND seq >= $2 AND last_seq >= $3 ORDER BY seq`
  }

  /**
   * Every row of session `$1` in seq order as body, checksum and what the server can tell of its columns without
   * parsing the body (rowMode array; see `checkedBodyRecords`): NULL for a scalar row whose body starts
   * `{"type":<type>,"seq":<seq>,"time":<time>,` and whose `last_seq` is its `seq`; its `last_seq` for a packed row whose
   * body starts `{"type":"<kind>","seq0":<seq>,"time0":<time>,` and whose type is `assistant/chunk`; -1 for any other
   * row. `left` reads only the start of a body.
   */
  get selectCheckedBodies(): string {
    const tags = ROW_KINDS.filter(kind => kind !== 'event').map(kind => `'${kind}'`).join(', ')
    return `SELECT body, crc, CASE WHEN CASE WHEN kind = 'event'
          THEN last_seq = seq AND type NOT IN (${tags})
            AND left(body, length(type) + length(seq::text) + length(time::text) + 26) = '{"type":' || to_json(type)::text || ',"seq":' || seq || ',"time":' || time || ','
          ELSE type = 'assistant/chunk'
            AND left(body, length(kind) + length(seq::text) + length(time::text) + 28) = '{"type":"' || kind || '","seq0":' || seq || ',"time0":' || time || ',' END
        THEN CASE WHEN kind = 'event' THEN NULL ELSE last_seq END ELSE -1 END
      FROM ${this.events} WHERE session_id = $1 ORDER BY seq`
  }

  get selectRowBefore(): string {
    return `SELECT seq, last_seq, kind, type, time, body, crc FROM ${this.events}
      WHERE session_id = $1 AND seq < $2 ORDER BY seq DESC LIMIT 1`
  }

  get countEvents(): string {
    return `SELECT count(*)::bigint AS n FROM ${this.events} WHERE session_id = $1`
  }

  /** `$1` session, then 7 values per row from `$2`. */
  insertEvents(rows: number, first = 2): string {
    return `INSERT INTO ${this.events} (session_id, seq, last_seq, kind, type, time, body, crc) VALUES ${valueRows(rows, first, '$1')}`
  }

  /**
   * The fenced append of 02 §6b as one statement: the lease must carry `$2` (locked `FOR SHARE`, so a takeover waits
   * for it), the session row must be at incarnation `$3`, revision `$4` and next seq `$5`; only then the cursor
   * moves to `$6`/`$7` and the rows are inserted. Returns the new revision, or no revision when a check failed
   * (nothing written).
   */
  fencedAppend(rows: number): string {
    let text = this.appendTexts.get(rows)
    if (text === undefined) {
      text = this.fencedAppendText(rows)
      this.appendTexts.set(rows, text)
    }
    return text
  }

  private readonly appendTexts = new Map<number, string>()

  private fencedAppendText(rows: number): string {
    return `WITH lease AS (
        SELECT 1 FROM ${this.leases} WHERE session_id = $1 AND token = $2 FOR SHARE
      ), moved AS (
        UPDATE ${this.sessions} SET next_seq = $6, updated_at = $7, revision = revision + 1
        WHERE id = $1 AND incarnation = $3 AND revision = $4 AND next_seq = $5 AND EXISTS (SELECT 1 FROM lease)
        RETURNING revision
      ), inserted AS (
        INSERT INTO ${this.events} (session_id, seq, last_seq, kind, type, time, body, crc)
        SELECT $1, v.seq, v.last_seq, v.kind, v.type, v.time, v.body, v.crc
        FROM (VALUES ${typedValueRows(rows, 8)}) AS v (seq, last_seq, kind, type, time, body, crc)
        WHERE EXISTS (SELECT 1 FROM moved)
        RETURNING 1
      )
      SELECT (SELECT revision FROM moved) AS revision, (SELECT count(*) FROM inserted)::bigint AS inserted`
  }

  get moveCursor(): string {
    return `UPDATE ${this.sessions} SET next_seq = $2, updated_at = $3, revision = revision + 1 WHERE id = $1 RETURNING revision`
  }

  get lockSessionRow(): string {
    return `SELECT ${SESSION_COLUMNS} FROM ${this.sessions} WHERE id = $1 FOR UPDATE`
  }

  get deleteEventsAfter(): string {
    return `DELETE FROM ${this.events} WHERE session_id = $1 AND seq > $2`
  }

  get deleteCheckpointFrom(): string {
    return `DELETE FROM ${this.checkpoints} WHERE session_id = $1 AND seq >= $2`
  }

  /** The foreign keys of the event table (schema version 1 had one to the session row). */
  get eventForeignKeys(): string {
    return `SELECT conname FROM pg_constraint WHERE conrelid = '${this.events}'::regclass AND contype = 'f' ORDER BY conname`
  }

  /** Drop the event table's constraint `name` (a name from `eventForeignKeys`). */
  dropEventConstraint(name: string): string {
    return `ALTER TABLE ${this.events} DROP CONSTRAINT ${ident(name)}`
  }

  get setSchemaVersion(): string {
    return `UPDATE ${this.store} SET schema_version = $1 WHERE singleton = 1`
  }

  get deleteSessionEvents(): string {
    return `DELETE FROM ${this.events} WHERE session_id = $1`
  }

  get deleteSession(): string {
    return `DELETE FROM ${this.sessions} WHERE id = $1`
  }

  get commitState(): string {
    return `SELECT s.next_seq, s.revision, l.owner_id FROM ${this.sessions} s
      LEFT JOIN ${this.leases} l ON l.session_id = s.id WHERE s.id = $1`
  }

  // ── leases ──

  get insertLease(): string {
    return `INSERT INTO ${this.leases} (session_id, ${LEASE_COLUMNS}, expires_at)
      VALUES ($1, $2, $3, $4, $5, $6, $7, now() + $8 * interval '1 millisecond')
      ON CONFLICT (session_id) DO NOTHING RETURNING token`
  }

  /**
   * Take a free lease in one statement: insert it, and return the current holder when one exists (the outer select
   * sees the snapshot before the insert, so it shows the conflicting row, or nothing when the insert won).
   */
  get claimLease(): string {
    return `WITH inserted AS (
        INSERT INTO ${this.leases} (session_id, ${LEASE_COLUMNS}, expires_at)
        VALUES ($1, $2, $3, $4, $5, $6, $7, now() + $8 * interval '1 millisecond')
        ON CONFLICT (session_id) DO NOTHING RETURNING token
      )
      SELECT (SELECT count(*) FROM inserted)::int AS inserted, l.${LEASE_COLUMNS.split(', ').join(', l.')}, l.expires_at <= now() AS expired
      FROM (SELECT 1) AS one LEFT JOIN ${this.leases} l ON l.session_id = $1`
  }

  get selectLeaseForUpdate(): string {
    return `SELECT ${LEASE_COLUMNS}, expires_at <= now() AS expired FROM ${this.leases} WHERE session_id = $1 FOR UPDATE`
  }

  get replaceLease(): string {
    return `UPDATE ${this.leases} SET owner_id = $3, pid = $4, host = $5, process_start = $6, acquired_at = $7, token = $8,
      expires_at = now() + $9 * interval '1 millisecond' WHERE session_id = $1 AND token = $2`
  }

  get renewLease(): string {
    return `UPDATE ${this.leases} SET expires_at = now() + $3 * interval '1 millisecond'
      WHERE session_id = $1 AND token = $2 RETURNING 1`
  }

  get selectLease(): string {
    return `SELECT ${LEASE_COLUMNS} FROM ${this.leases} WHERE session_id = $1`
  }

  get holdsLease(): string {
    return `SELECT ${LEASE_COLUMNS} FROM ${this.leases} WHERE session_id = $1 FOR SHARE`
  }

  get deleteLease(): string {
    return `DELETE FROM ${this.leases} WHERE session_id = $1 AND token = $2`
  }

  get deleteLeaseOfOwner(): string {
    return `DELETE FROM ${this.leases} WHERE session_id = $1 AND owner_id = $2`
  }

  // ── checkpoints ──

  get selectCheckpoint(): string {
    return `SELECT c.seq, c.body, c.crc, s.next_seq FROM ${this.checkpoints} c
      JOIN ${this.sessions} s ON s.id = c.session_id WHERE c.session_id = $1`
  }

  get upsertCheckpoint(): string {
    return `INSERT INTO ${this.checkpoints} (session_id, seq, body, crc) VALUES ($1, $2, $3, $4)
      ON CONFLICT (session_id) DO UPDATE SET seq = excluded.seq, body = excluded.body, crc = excluded.crc`
  }

  // ── listing ──

  /**
   * Sessions matching the filters, newest first, each with its last event row (the listing checks that record's
   * checksum): every matching row, for a first page.
   */
  get listSessions(): string {
    return this.listSelect('', '')
  }

  /**
   * The rows after the keyset position `($5, $6)`, at most `$7`: a range scan of `logbook_sessions_by_update` in index
   * order, so the last-record join runs only for the rows returned.
   */
  get listSessionsAfter(): string {
    return this.listSelect('AND s.updated_at <= $5 AND (s.updated_at < $5 OR s.id > $6)', 'LIMIT $7')
  }

  /** The listing's select: filters `$1` cwd, `$2` parent mode, `$3` parent, `$4` updated after, then `keyset`'s. */
  private listSelect(keyset: string, limit: string): string {
    return `SELECT s.id, s.version, s.created_at, s.cwd, s.parent_session, s.header, s.incarnation, s.next_seq,
        s.updated_at, s.revision, s.crc, e.last_seq AS tail_last_seq, e.body AS tail_body, e.crc AS tail_crc
      FROM ${this.sessions} s
      LEFT JOIN LATERAL (SELECT last_seq, body, crc FROM ${this.events} WHERE session_id = s.id ORDER BY seq DESC LIMIT 1) e ON true
      WHERE ($1::text IS NULL OR s.cwd = $1)
        AND ($2::int = 0 OR ($2 = 1 AND s.parent_session = $3) OR ($2 = 2 AND s.parent_session IS NULL))
        AND ($4::bigint IS NULL OR s.updated_at > $4)
        ${keyset}
      ORDER BY s.updated_at DESC, s.id ASC
      ${limit}`
  }
}

/** `($f, $f+1 … $f+6), …` for `rows` rows of 7 values, prefixed by a shared first value. */
function valueRows(rows: number, first: number, shared: string): string {
  const out: string[] = []
  for (let r = 0; r < rows; r++) {
    const b = first + r * 7
    out.push(`(${shared}, $${b}, $${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5}, $${b + 6})`)
  }
  return out.join(', ')
}

/** `VALUES` rows of 7 values from `$first`, the first row typed (a `VALUES` list takes its types from it). */
function typedValueRows(rows: number, first: number): string {
  const out: string[] = []
  for (let r = 0; r < rows; r++) {
    const b = first + r * 7
    out.push(r === 0
      ? `($${b}::bigint, $${b + 1}::bigint, $${b + 2}::text, $${b + 3}::text, $${b + 4}::bigint, $${b + 5}::text, $${b + 6}::bigint)`
      : `($${b}, $${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5}, $${b + 6})`)
  }
  return out.join(', ')
}
