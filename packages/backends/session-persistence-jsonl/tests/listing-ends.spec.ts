/**
 * What a fresh process's first listing page reads from the two ends of each session file (02 §5 "List"): every file
 * size around the first read's window, a packed last record, and every problem those ends can hold.
 */
import { randomUUID } from 'node:crypto'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { recordChecksum } from '@logbook/session-persistence'
import { CURRENT_FRAMING, frameLine } from '../src/framing.ts'
import { encodeHeaderLine } from '../src/header-line.ts'
import { encodeId, projectKey, SESSION_FILE } from '../src/layout.ts'
import { ev, hdr, openTurnWithChunks, T0, turns } from './events.ts'
import { JsonlApp, tempRoot } from './mount.ts'

let root: string
let cleanup: () => Promise<void>
let app: JsonlApp

beforeEach(async () => {
  ;({ root, cleanup } = await tempRoot())
  app = await JsonlApp.start(root)
})
afterEach(async () => {
  await app.stop()
  await cleanup()
})

const framed = (text: string): string => frameLine(text, recordChecksum(text), CURRENT_FRAMING)
const headerOf = (id: string, extra: Record<string, unknown> = {}): string => `${encodeHeaderLine(hdr(id, extra), randomUUID())}\n`
const fileOf = (id: string): string => join(root, projectKey(hdr(id).cwd), encodeId(id), SESSION_FILE)

/** Writes session `id` as exactly these bytes (the store itself exists once a session was created through it). */
async function writeRaw(id: string, bytes: string): Promise<void> {
  await mkdir(join(root, projectKey(hdr(id).cwd), encodeId(id)), { recursive: true })
  await writeFile(fileOf(id), bytes)
}

/** A session of one event per line up to seq `last`, the last one padded so that the file is exactly `size` bytes. */
function sized(id: string, size: number, last = 3): string {
  let body = headerOf(id)
  for (let seq = 0; seq < last; seq++) body += framed(JSON.stringify(ev('turn/start', seq, { turn: seq + 1 })))
  const lastLine = (pad: string): string => framed(JSON.stringify(ev('custom/pad', last, { pad }, { ignorable: true })))
  const room = size - Buffer.byteLength(body + lastLine(''))
  if (room < 0) throw new Error(`size ${size} is too small`)
  return body + lastLine('x'.repeat(room))
}

async function store(id: string): Promise<void> {
  const handle = await app.persistence.create(hdr(id))
  await handle.append(turns(1))
  await handle.close()
}

describe('P-175 the first page of a fresh listing reads each file\'s two ends', () => {
  it('P-175 files shorter than, exactly and longer than the 16 KiB first read, and one with long ends, list their last event', async () => {
    await store('seed')
    const sizes: Record<string, number> = { s1: 600, s2: 16_383, s3: 16_384, s4: 16_385, s5: 70_000 }
    for (const [id, size] of Object.entries(sizes)) await writeRaw(id, sized(id, size))
    // A header line longer than the first read and a last line longer than the last 4 KiB: both ends widen.
    await writeRaw('s6', headerOf('s6', { agentPreset: 'p'.repeat(20_000) }) + sized('s6', 30_000).split('\n').slice(1).join('\n'))
    await writeRaw('s7', `${headerOf('s7')}`)
    const page = await app.persistence.list()
    expect(page.problems).toEqual([])
    const summaries = Object.fromEntries(page.items.map(s => [s.id, [s.eventCount, s.updatedAt]]))
    expect(summaries).toEqual({
      seed: [6, T0 + 5], s1: [4, T0 + 3], s2: [4, T0 + 3], s3: [4, T0 + 3], s4: [4, T0 + 3], s5: [4, T0 + 3],
      s6: [4, T0 + 3], s7: [0, T0 - 1000],
    })
    for (const [id, size] of Object.entries(sizes)) expect((await readFile(fileOf(id))).length).toBe(size)
    for (const s of page.items) {
      expect(Object.isFrozen(s.header)).toBe(true)
      expect(s.revision).toBe((await app.persistence.open(s.id, 'read')).revision)
    }
    expect(page.items.find(s => s.id === 's6')!.header.agentPreset).toHaveLength(20_000)
  })

  it('P-175 a last record that is a packed chunk run gives its last member\'s seq and time', async () => {
    const handle = await app.persistence.create(hdr('packed'))
    await handle.append([...turns(1), ...openTurnWithChunks(6, 2, 40)])
    await handle.close()
    const lastLine = (await readFile(fileOf('packed'), 'utf8')).trimEnd().split('\n').at(-1)!
    expect(lastLine).toMatch(/^[0-9a-f]{8} \{"type":"text-chunks"/)
    const [summary] = (await app.persistence.list()).items
    expect([summary!.id, summary!.eventCount, summary!.updatedAt]).toEqual(['packed', 49, T0 + 48])
  })

  it('P-175 every problem of a file\'s ends is reported with its code and exact message; the healthy session is listed', async () => {
    await store('ok')
    const body = sized('x', 800).split('\n').slice(1).join('\n')
    const line = (text: string): string => framed(text)
    const header = (id: string, fields: string): string => line(`{"type":"session","version":1,"incarnation":"${randomUUID()}","id":"${id}","framing":2,${fields}}`)
    const cwd = JSON.stringify(hdr('x').cwd)
    await writeRaw('crc', headerOf('crc').replace(/^[0-9a-f]/, (d) => (d === '0' ? '1' : '0')) + body)
    await writeRaw('minus0', header('minus0', `"createdAt":-0,"cwd":${cwd}`) + body)
    await writeRaw('unknown', header('unknown', `"createdAt":1,"cwd":${cwd},"zz":1`) + body)
    await writeRaw('seeded', header('seeded', `"createdAt":1,"cwd":${cwd},"seedLength":2`) + body)
    await writeRaw('v9', line(`{"type":"session","version":9,"incarnation":"${randomUUID()}","id":"v9","framing":2,"createdAt":1,"cwd":${cwd}}`) + body)
    await writeRaw('f3', line(`{"type":"session","version":1,"incarnation":"${randomUUID()}","id":"f3","framing":3,"createdAt":1,"cwd":${cwd}}`) + body)
    const x = body.lastIndexOf('x')
    await writeRaw('lastcrc', `${headerOf('lastcrc')}${body.slice(0, x)}y${body.slice(x + 1)}`)
    await writeRaw('lastjson', `${headerOf('lastjson')}${line('{"type":')}`)
    await writeRaw('lastrow', `${headerOf('lastrow')}${line('{"type":"text-chunks","seq0":0,"time0":1}')}`)
    const page = await app.persistence.list()
    expect(page.items.map(s => s.id)).toEqual(['ok'])
    const problems = page.problems.map(p => [p.sessionId, (p.error as { code?: string }).code, p.error.message]).sort()
    const at = (id: string): string => fileOf(id)
    expect(problems).toEqual([
      ['crc', 'SESSION_CORRUPT', expect.stringMatching(/^session "crc": header checksum mismatch \(stored [0-9a-f]{8}, computed [0-9a-f]{8}\)$/)],
      ['f3', 'SESSION_FORMAT_UNSUPPORTED', `session "f3" was written by a newer Logbook (store framing 3, this build reads 2): upgrade Logbook (raw log: ${at('f3')})`],
      ['lastcrc', 'SESSION_CORRUPT', expect.stringMatching(/^session "lastcrc": the last record fails its check: checksum mismatch/)],
      ['lastjson', 'SESSION_CORRUPT', 'session "lastjson": the last record is not valid JSON'],
      ['lastrow', 'SESSION_CORRUPT', expect.stringMatching(/^session "lastrow": the last record does not decode: ./)],
      ['minus0', 'SESSION_CORRUPT', 'session "minus0": invalid header: session header must be a plain object'],
      ['seeded', 'SESSION_CORRUPT', 'session "seeded": invalid header: session header seedLength requires isSeeded: true'],
      ['unknown', 'SESSION_CORRUPT', 'session "unknown": invalid header: session header has unknown field "zz"'],
      ['v9', 'SESSION_FORMAT_UNSUPPORTED', `session "v9" was written by a newer Logbook (format 9, this build reads 2): upgrade Logbook (raw log: ${at('v9')})`],
    ])
    const invalid = page.problems.find(p => p.sessionId === 'unknown')!.error as Error & { cause?: { code?: string } }
    expect(invalid.cause?.code).toBe('INVALID_HEADER')
  })
})
