/**
 * Store formats side by side (02 §5 "Lines", §4.7; P-148): a framing-1 file (plain JSON lines, written before
 * checksums) stays readable and keeps its framing when appended to, until `migrate` rewrites it beside itself; a
 * repair keeps a copy of the file first.
 */
import { randomUUID } from 'node:crypto'
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { SessionEvent } from '@logbook/session'
import { encodeBatch, hex8, recordChecksum } from '@logbook/session-persistence'
import { PREFIX_BYTES } from '../src/framing.ts'
import { encodeId, projectKey } from '../src/layout.ts'
import { jsonlDamage } from './damage.ts'
import { hdr, openTurnWithChunks, turns } from './events.ts'
import { JsonlApp, tempRoot } from './mount.ts'

let root: string
let cleanup: () => Promise<void>
let app: JsonlApp

beforeEach(async () => {
  ;({ root, cleanup } = await tempRoot())
  app = await JsonlApp.start(root)
  // The store root and its identity file exist once any session was stored.
  const handle = await app.persistence.create(hdr('current'))
  await handle.append(turns(1))
  await handle.close()
})
afterEach(async () => {
  await app.stop()
  await cleanup()
})

/** Write `id` as a build without checksums did: a plain JSON header line, then one plain JSON line per record. */
async function writeLegacy(id: string, events: readonly SessionEvent[]): Promise<string> {
  const { version, id: _id, ...rest } = hdr(id)
  const header = JSON.stringify({ type: 'session', version, incarnation: randomUUID(), id, ...rest })
  const lines = [header, ...encodeBatch(events, true).map(r => r.text)]
  const file = join(root, projectKey(hdr(id).cwd), encodeId(id), 'session.jsonl')
  await mkdir(dirname(file), { recursive: true, mode: 0o700 })
  await writeFile(file, `${lines.join('\n')}\n`, { mode: 0o600 })
  return file
}

const linesOf = async (file: string): Promise<string[]> => (await readFile(file, 'utf8')).trimEnd().split('\n')

describe('P-148 framing 1 beside framing 2', () => {
  it('P-148 a framing-1 file reads, lists, and keeps plain lines when appended to; checksums: false', async () => {
    const events = [...turns(1), ...openTurnWithChunks(6, 2, 5)]
    const file = await writeLegacy('old', events)
    const inspection = await app.persistence.inspect('old')
    expect(inspection.checksums).toBe(false)
    expect(inspection.events).toEqual(events)
    expect((await app.persistence.list()).items.map(i => i.id).sort()).toEqual(['current', 'old'])
    const writer = await app.persistence.open('old', 'write')
    await writer.append(openTurnWithChunks(events.length, 3, 4).slice(0, 3))
    await writer.close()
    expect((await linesOf(file)).every(line => line.startsWith('{'))).toBe(true)
    expect((await app.persistence.inspect('current')).checksums).toBe(true)
  })

  it('P-148 migrate rewrites it with a checksum on every line beside the original, which stays byte for byte; a second migrate writes nothing', async () => {
    const events = [...turns(2), ...openTurnWithChunks(12, 3, 6)]
    const file = await writeLegacy('old', events)
    const before = await readFile(file)
    const result = await app.persistence.migrate('old')
    expect(result).toMatchObject({ sessionId: 'old', migrated: true, scope: 'session', sessions: ['old'] })
    expect(dirname(result.original!)).toBe(dirname(file))
    expect(result.original).toMatch(/session\.jsonl\.\d{8}T\d{6}Z\.framing-1$/)
    expect(await readFile(result.original!)).toEqual(before)
    const lines = await linesOf(file)
    const old = before.toString('utf8').trimEnd().split('\n')
    expect(lines).toHaveLength(old.length)
    for (const line of lines) expect(line.slice(0, PREFIX_BYTES)).toBe(`${hex8(recordChecksum(line.slice(PREFIX_BYTES)))} `)
    expect(lines.slice(1).map(line => line.slice(PREFIX_BYTES))).toEqual(old.slice(1))
    expect(JSON.parse(lines[0]!.slice(PREFIX_BYTES))).toEqual({ ...JSON.parse(old[0]!), framing: 2 })
    const inspection = await app.persistence.inspect('old')
    expect(inspection.checksums).toBe(true)
    expect(inspection.events).toEqual(events)
    expect(await app.persistence.migrate('old')).toEqual({ sessionId: 'old', migrated: false, sessions: [] })
    const writer = await app.persistence.open('old', 'write')
    await writer.append(openTurnWithChunks(events.length, 4, 3).slice(0, 2))
    await writer.close()
    expect((await linesOf(file)).slice(-2).every(line => /^[0-9a-f]{8} \{/.test(line))).toBe(true)
  })

  it('P-148 migrate cuts a torn tail first, refuses a corrupt file and leaves it alone', async () => {
    const file = await writeLegacy('torn', turns(1))
    await writeFile(file, `${await readFile(file, 'utf8')}{"type":"turn/st`)
    const done = await app.persistence.migrate('torn')
    expect(done.migrated).toBe(true)
    expect((await app.persistence.inspect('torn')).events).toEqual(turns(1))
    const bad = await writeLegacy('bad', turns(2))
    await jsonlDamage(root).corruptRecord('bad', 3, 'garbage')
    const damaged = await readFile(bad)
    await expect(app.persistence.migrate('bad')).rejects.toMatchObject({ code: 'SESSION_CORRUPT', line: 5 })
    expect(await readFile(bad)).toEqual(damaged)
    expect(await readdir(dirname(bad))).toEqual(['session.jsonl'])
  })

  it('P-145 a confirmed repair keeps a copy of the file beside it before cutting', async () => {
    await app.persistence.create(hdr('cut')).then(async h => { await h.append(turns(2)); await h.close() })
    await jsonlDamage(root).corruptRecord('cut', 7, 'checksum')
    const file = (await app.persistence.locate('cut'))!
    const damaged = await readFile(file)
    const result = await app.persistence.repair('cut', { confirm: 'cut-records' })
    expect(result).toMatchObject({ cutAt: 7, cut: true, defect: { seq: 7, line: 9 } })
    expect(result.backup).toMatch(/session\.jsonl\.\d{8}T\d{6}Z\.bak$/)
    expect(await readFile(result.backup!)).toEqual(damaged)
    expect((await app.persistence.inspect('cut')).events).toEqual(turns(2).slice(0, 7))
  })
})
