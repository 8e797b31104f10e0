/**
 * Child entry of the persistence workloads: `persistence-child.ts <step> <backend> <dir> [count]` runs one step in a fresh
 * process and prints its figures as one JSON line. Steps:
 * - `prep-w`: store W as session `w` (not durable: preparation is not timed);
 * - `prep-big`: store `count` × W's turns as session `w`, streamed a turn at a time (B10);
 * - `resume`: B2, cold resume of `w` (open, read, repair check, rebuild, publish, derive messages), timed;
 * - `resume-warm`: B2's warm reference, the same resume timed the third time one process runs it (each on a new mount);
 * - `read-floor`: B2's floor, read the stored log and `JSON.parse` every line/row;
 * - `eager-build`: B2's reference, the floor plus building every event frozen (no checks, no session);
 * - `checked-hold`: B2's other reference, the floor plus each record's checksum, every non-row event frozen, rows held;
 * - `unpacked-floor`: B2's other reference, the floor over W stored one event per line;
 * - `rss`: M, RSS after imports and mount, then peak RSS after the resume;
 * - `prep-many`: store `count` sessions of one W turn each, with distinct times (B9, B12);
 * - `list`: B9 and B12, the first page of 50 and a full walk, timed;
 * - `list-floor`: B9's and B12's floor, read the header and the last 4 KiB of each stored session (PostgreSQL: each header
 *   row and its last record).
 */

import { closeSync, openSync, readdirSync, readFileSync, readSync, statSync, unlinkSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { crc32 } from 'node:zlib'
import { encodeBatch } from '@logbook/session-persistence'
import { collectGarbage, cpuMark, cpuSpentSince } from '../harness.ts'
import { W_TURNS, wEvents, wEventStream } from '../session-w.ts'
import { backendKind, mount, resume, storeEvents, storeEventStream, storeSessions, storePath, type BackendKind } from './persistence-store.ts'
import { BENCH_SCHEMA, benchUrl, pgClient } from './postgres-server.ts'

type Sqlite = {
  prepare(sql: string): { all(...args: unknown[]): { body?: string; header?: string; id?: string; crc?: number }[]; get(...args: unknown[]): { body?: string; header?: string } | undefined }
  close(): void
}

/** better-sqlite3, resolved from the SQLite backend package (the repo root does not depend on it). */
function openSqlite(path: string): Sqlite {
  const require = createRequire(join(process.cwd(), 'packages/backends/session-persistence-sqlite/package.json'))
  const Database = require('better-sqlite3') as new (path: string, options: { readonly: boolean }) => Sqlite
  return new Database(path, { readonly: true })
}

/** Every `session.jsonl` under a JSONL root. */
function jsonlFiles(root: string): string[] {
  const files: string[] = []
  for (const project of readdirSync(root)) {
    if (project.startsWith('.')) continue
    for (const session of readdirSync(join(root, project))) files.push(join(root, project, session, 'session.jsonl'))
  }
  return files
}

/**
 * Where the JSON text of the line at `from` starts: after its `<8 hex> ` checksum prefix (JSONL framing 2), or at once
 * (framing 1). The floor parses the text only; checking the checksum is the backend's cost, not the floor's.
 */
function textStart(bytes: Buffer, from: number): number {
  return bytes[from] === 0x7b ? from : from + 9
}

function readFloor(kind: BackendKind, dir: string): { ms: number; records: number; mainCpuMs?: number; processCpuMs: number } {
  collectGarbage()
  const cpu = cpuMark()
  const start = performance.now()
  let records = 0
  if (kind === 'jsonl') {
    const bytes = readFileSync(jsonlFiles(storePath(kind, dir))[0] as string)
    for (let from = 0, nl = bytes.indexOf(10); nl !== -1; from = nl + 1, nl = bytes.indexOf(10, from)) {
      JSON.parse(bytes.toString('utf8', textStart(bytes, from), nl))
      records++
    }
  } else {
    const db = openSqlite(storePath(kind, dir))
    JSON.parse(db.prepare('SELECT header FROM logbook_sessions WHERE id = ?').get('w')?.header as string)
    for (const row of db.prepare('SELECT body FROM logbook_events WHERE session_id = ? ORDER BY seq').all('w')) {
      JSON.parse(row.body as string)
      records++
    }
    db.close()
  }
  return { ms: performance.now() - start, records, ...cpuSpentSince(cpu) }
}

/**
 * B2's unpacked reference floor (not the target's floor): W stored one event per line, as the shared codec writes a
 * scalar event, then read and `JSON.parse`d line by line like the floor. It shows what packing saves: the packed
 * records the backends store parse about three times faster than this.
 */
function unpackedFloor(dir: string): { ms: number; records: number } {
  const file = join(dir, 'unpacked.jsonl')
  writeFileSync(file, encodeBatch(wEvents(), false).map(record => `${record.text}\n`).join(''))
  try {
    collectGarbage()
    const start = performance.now()
    let records = 0
    const bytes = readFileSync(file)
    for (let from = 0, nl = bytes.indexOf(10); nl !== -1; from = nl + 1, nl = bytes.indexOf(10, from)) {
      JSON.parse(bytes.toString('utf8', from, nl))
      records++
    }
    return { ms: performance.now() - start, records }
  } finally {
    unlinkSync(file)
  }
}

const freeze = Object.freeze

/** Freezes a parsed JSON value and everything in it (arrays by index). */
function freezeParsedTree(value: unknown): void {
  if (typeof value !== 'object' || value === null) return
  if (Array.isArray(value)) for (let i = 0; i < value.length; i++) freezeParsedTree(value[i])
  else for (const key in value) freezeParsedTree((value as Record<string, unknown>)[key])
  freeze(value)
}

type TextRow = { type: string; seq0: number; time0: number; data: { turn: number; step: number; index: number; dt: number[]; texts: string[] } }

/**
 * Appends the events of one parsed record to `log` the cheapest way an eager restore can: a text row's members built
 * frozen (own envelope, data and chunk each), any other record deep-frozen as parsed. No check of any kind.
 */
function materialiseRecord(value: unknown, log: unknown[]): void {
  const row = value as TextRow
  if (row.type !== 'text-chunks') {
    freezeParsedTree(value)
    log.push(value)
    return
  }
  const { turn, step, index, dt, texts } = row.data
  let time = row.time0
  for (let i = 0; i < texts.length; i++) {
    if (i > 0) time += dt[i - 1]!
    const chunk = freeze({ type: 'text-delta', index, text: texts[i] })
    log.push(freeze({ type: 'assistant/chunk', seq: row.seq0 + i, time, data: freeze({ turn, step, chunk }) }))
  }
}

/**
 * B2's eager-build reference (not a target): the floor's read and parse plus building every event frozen in one
 * array the plain way, with no check, no repair and no session: the cost of merely holding W as frozen objects.
 */
function eagerBuild(kind: BackendKind, dir: string): { ms: number; events: number } {
  collectGarbage()
  const start = performance.now()
  const log: unknown[] = []
  if (kind === 'jsonl') {
    const bytes = readFileSync(jsonlFiles(storePath(kind, dir))[0] as string)
    let header = true
    for (let from = 0, nl = bytes.indexOf(10); nl !== -1; from = nl + 1, nl = bytes.indexOf(10, from)) {
      const value: unknown = JSON.parse(bytes.toString('utf8', textStart(bytes, from), nl))
      if (header) header = false
      else materialiseRecord(value, log)
    }
  } else {
    const db = openSqlite(storePath(kind, dir))
    JSON.parse(db.prepare('SELECT header FROM logbook_sessions WHERE id = ?').get('w')?.header as string)
    for (const row of db.prepare('SELECT body FROM logbook_events WHERE session_id = ? ORDER BY seq').all('w')) {
      materialiseRecord(JSON.parse(row.body as string), log)
    }
    db.close()
  }
  return { ms: performance.now() - start, events: log.length }
}

/** The 8 lowercase hex digits at `bytes[from…]` as a number (-1 for any other byte). */
function hexPrefix(bytes: Buffer, from: number): number {
  let value = 0
  for (let i = from; i < from + 8; i++) {
    const b = bytes[i]!
    const digit = b >= 0x30 && b <= 0x39 ? b - 0x30 : b >= 0x61 && b <= 0x66 ? b - 0x57 : -1
    if (digit < 0) return -1
    value = value * 16 + digit
  }
  return value
}

/**
 * B2's checked-hold reference (not a target): what any resume that keeps this integrity must do at the least — the
 * floor's read and parse, each record's stored checksum checked against its bytes, every event that is not a packed
 * row deep-frozen, and every packed row held as it was parsed (its members never built); no other check, no repair,
 * no session, no surface and no derived messages. B2's figure over this shows what the session and its checks add.
 */
function checkedHold(kind: BackendKind, dir: string): { ms: number; events: number } {
  collectGarbage()
  const start = performance.now()
  const log: unknown[] = []
  const hold = (value: unknown): void => {
    const row = value as TextRow
    if (row.type === 'text-chunks' || row.type === 'reasoning-chunks' || row.type === 'tool-call-chunks') {
      const data = row.data as { texts?: unknown[]; args?: unknown[] }
      const members = (data.texts ?? data.args)!
      const from = log.length
      log.length = from + members.length
      log.fill(row, from)
    } else {
      freezeParsedTree(value)
      log.push(value)
    }
  }
  if (kind === 'jsonl') {
    const bytes = readFileSync(jsonlFiles(storePath(kind, dir))[0] as string)
    let header = true
    for (let from = 0, nl = bytes.indexOf(10); nl !== -1; from = nl + 1, nl = bytes.indexOf(10, from)) {
      const text = textStart(bytes, from)
      if (text !== from && crc32(bytes.subarray(text, nl)) !== hexPrefix(bytes, from)) {
        throw new Error(`checksum mismatch at byte ${from}`)
      }
      const value: unknown = JSON.parse(bytes.toString('utf8', text, nl))
      if (header) header = false
      else hold(value)
    }
  } else {
    const db = openSqlite(storePath(kind, dir))
    JSON.parse(db.prepare('SELECT header FROM logbook_sessions WHERE id = ?').get('w')?.header as string)
    for (const row of db.prepare('SELECT body, crc FROM logbook_events WHERE session_id = ? ORDER BY seq').all('w')) {
      if (crc32(row.body as string) !== row.crc) throw new Error('checksum mismatch')
      hold(JSON.parse(row.body as string))
    }
    db.close()
  }
  return { ms: performance.now() - start, events: log.length }
}

function listFloor(kind: BackendKind, dir: string): { ms: number; sessions: number } {
  collectGarbage()
  const start = performance.now()
  let sessions = 0
  if (kind === 'jsonl') {
    const buffer = Buffer.allocUnsafe(4096)
    for (const file of jsonlFiles(storePath(kind, dir))) {
      const fd = openSync(file, 'r')
      const { size } = statSync(file)
      readSync(fd, buffer, 0, 4096, 0)
      readSync(fd, buffer, 0, Math.min(4096, size), Math.max(0, size - 4096))
      closeSync(fd)
      sessions++
    }
  } else {
    const db = openSqlite(storePath(kind, dir))
    const last = db.prepare('SELECT body FROM logbook_events WHERE session_id = ? ORDER BY seq DESC LIMIT 1')
    for (const row of db.prepare('SELECT id, header FROM logbook_sessions').all()) {
      last.get(row.id)
      sessions++
    }
    db.close()
  }
  return { ms: performance.now() - start, sessions }
}

/**
 * The PostgreSQL floors, with plain `pg` on one connection: B2's reads the header row and every event row of `w` in
 * seq order and parses each (with `eager`, also builds every event frozen as `eagerBuild` does); B9's reads each
 * session's header row and its last record. Sorts are off on the connection, as in the backend's read snapshot, so
 * the rows come in key order, never after a sort of the whole log.
 */
async function pgFloor(step: 'read-floor' | 'eager-build' | 'list-floor'): Promise<Record<string, number>> {
  const client = await pgClient(benchUrl())
  const s = `"${BENCH_SCHEMA}"`
  try {
    await client.query('SET enable_sort = off')
    collectGarbage()
    const start = performance.now()
    if (step === 'list-floor') {
      const sessions = (await client.query<{ id: string; header: string }>(`SELECT id, header FROM ${s}.logbook_sessions`)).rows
      for (const row of sessions) {
        JSON.parse(row.header)
        await client.query(`SELECT body FROM ${s}.logbook_events WHERE session_id = $1 ORDER BY seq DESC LIMIT 1`, [row.id])
      }
      return { ms: performance.now() - start, sessions: sessions.length }
    }
    JSON.parse((await client.query<{ header: string }>(`SELECT header FROM ${s}.logbook_sessions WHERE id = $1`, ['w'])).rows[0]!.header)
    const rows = (await client.query<[string]>({ text: `SELECT body FROM ${s}.logbook_events WHERE session_id = $1 ORDER BY seq`, values: ['w'], rowMode: 'array' })).rows
    const log: unknown[] = []
    for (const row of rows) {
      const value: unknown = JSON.parse(row[0])
      if (step === 'eager-build') materialiseRecord(value, log)
    }
    const ms = performance.now() - start
    return step === 'eager-build' ? { ms, events: log.length } : { ms, records: rows.length }
  } finally {
    await client.end()
  }
}

/** One B2 resume of `w` on a new durable mount, timed with its CPU (the mount and its stop are not timed). */
async function timedResume(kind: BackendKind, dir: string): Promise<{ ms: number; events: number; messages: number } & ReturnType<typeof cpuSpentSince>> {
  const m = await mount(kind, dir, { durable: true })
  collectGarbage()
  const cpu = cpuMark()
  const start = performance.now()
  const { session, messages } = await resume(m, 'w')
  const ms = performance.now() - start
  const spent = cpuSpentSince(cpu)
  const events = session.seq
  await m.stop()
  return { ms, events, messages, ...spent }
}

async function main(): Promise<unknown> {
  const [step, kindArg, dir, countArg] = process.argv.slice(2)
  const kind = backendKind(kindArg)
  if (dir === undefined) throw new Error('missing fixture dir')
  switch (step) {
    case 'prep-w': {
      const m = await mount(kind, dir, { durable: false })
      const events = wEvents()
      await storeEvents(m.persistence, 'w', events)
      await m.stop()
      return { events: events.length }
    }
    case 'prep-big': {
      const m = await mount(kind, dir, { durable: false })
      const events = await storeEventStream(m.persistence, 'w', wEventStream({ turns: W_TURNS * Number(countArg) }))
      await m.stop()
      return { events }
    }
    case 'resume':
      return timedResume(kind, dir)
    case 'resume-warm':
      // Two untimed resumes first: after the first, V8 throws away code that held the first mount's objects.
      await timedResume(kind, dir)
      await timedResume(kind, dir)
      return timedResume(kind, dir)
    case 'read-floor':
      return kind === 'postgres' ? pgFloor(step) : readFloor(kind, dir)
    case 'eager-build':
      return kind === 'postgres' ? pgFloor(step) : eagerBuild(kind, dir)
    case 'checked-hold':
      if (kind === 'postgres') throw new Error('checked-hold is measured for the file backends')
      return checkedHold(kind, dir)
    case 'unpacked-floor':
      return unpackedFloor(dir)
    case 'rss': {
      const m = await mount(kind, dir, { durable: true })
      collectGarbage()
      const baseline = process.memoryUsage().rss
      const { session } = await resume(m, 'w')
      const peak = process.resourceUsage().maxRSS * 1024
      const events = session.seq
      await m.stop()
      return { baseline, peak, events }
    }
    case 'prep-many': {
      const count = Number(countArg)
      const m = await mount(kind, dir, { durable: false })
      await storeSessions(m.persistence, count)
      await m.stop()
      return { sessions: count }
    }
    case 'list': {
      const m = await mount(kind, dir, { durable: false })
      collectGarbage()
      let start = performance.now()
      const first = await m.persistence.list({ limit: 50 })
      const pageMs = performance.now() - start
      collectGarbage()
      start = performance.now()
      let items = 0
      let pages = 0
      for (let cursor: string | null | undefined; cursor !== null; pages++) {
        const page = await m.persistence.list(cursor === undefined ? { limit: 50 } : { limit: 50, cursor })
        items += page.items.length
        cursor = page.nextCursor
      }
      const walkMs = performance.now() - start
      await m.stop()
      return { pageMs, walkMs, pages, items, firstItems: first.items.length }
    }
    case 'list-floor':
      return kind === 'postgres' ? pgFloor(step) : listFloor(kind, dir)
    default:
      throw new Error(`unknown step ${step}`)
  }
}

process.stdout.write(`${JSON.stringify(await main())}\n`)
