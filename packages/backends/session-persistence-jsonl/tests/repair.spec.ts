/**
 * Torn tails at every byte and flipped bytes mid-log on real files (P-073, P-076 and the JSONL real-world checks):
 * a torn tail is cut back to the last complete record; corruption is refused with the file byte-for-byte unchanged.
 */
import { readFile, truncate, writeFile, appendFile } from 'node:fs/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { hex8, isSessionPersistenceError, recordChecksum } from '@logbook/session-persistence'
import { PREFIX_BYTES } from '../src/framing.ts'
import { ev, hdr, openTurnWithChunks, turn, turns } from './events.ts'
import { JsonlApp, tempRoot } from './mount.ts'

let root: string
let cleanup: () => Promise<void>
let app: JsonlApp

beforeAll(async () => {
  ;({ root, cleanup } = await tempRoot())
  app = await JsonlApp.start(root)
})
afterAll(async () => {
  await app.stop()
  await cleanup()
})

/** Stores `events` in one batch; returns the file, its bytes and the byte offset just past each line. */
async function storeOneBatch(id: string, events = turns(2)): Promise<{ file: string; bytes: Buffer; lineEnds: number[] }> {
  const handle = await app.persistence.create(hdr(id))
  await handle.append(events)
  await handle.close()
  const file = (await app.persistence.locate(id)) as string
  const bytes = await readFile(file)
  const lineEnds: number[] = []
  for (let i = bytes.indexOf(10); i !== -1; i = bytes.indexOf(10, i + 1)) lineEnds.push(i + 1)
  return { file, bytes, lineEnds }
}

/** Events held by each record line after the header, in order. */
function eventsPerRecord(bytes: Buffer, lineEnds: number[]): number[] {
  return lineEnds.slice(1).map((end, i) => {
    const line = JSON.parse(bytes.toString('utf8', (lineEnds[i] as number) + PREFIX_BYTES, end - 1)) as { seq0?: number; data: { texts?: unknown[] } }
    return line.seq0 === undefined ? 1 : (line.data.texts as unknown[]).length
  })
}

describe('P-073 torn tails at every byte', () => {
  it('P-073 every offset within the last 3 records of one batch → the prefix up to the last complete record', async () => {
    const events = [...turn(0, 1), ...openTurnWithChunks(6, 2, 5), ev('step/end', 14, { turn: 2, step: 1 }), ev('turn/end', 15, { turn: 2, reason: { kind: 'completed' } })]
    const { file, bytes, lineEnds } = await storeOneBatch('p73', events)
    const counts = eventsPerRecord(bytes, lineEnds)
    expect(counts.at(-3)).toBe(5) // the packed chunk run is among the last three records
    const firstOfLastThree = lineEnds[lineEnds.length - 4] as number
    for (let offset = firstOfLastThree; offset < bytes.length; offset++) {
      await writeFile(file, bytes.subarray(0, offset))
      // complete records: every line ending at or before the offset
      const complete = lineEnds.filter((end) => end <= offset).length - 1
      const boundary = lineEnds[complete] as number
      const nextSeq = counts.slice(0, complete).reduce((a, b) => a + b, 0)
      const handle = await app.persistence.open('p73', 'write')
      expect(handle.nextSeq, `offset ${offset}`).toBe(nextSeq)
      if (boundary === offset) expect(handle.recovery, `offset ${offset}`).toBeNull()
      else expect(handle.recovery?.tornTail, `offset ${offset}`).toMatchObject({ fromSeq: nextSeq, droppedRecords: 1 })
      expect(await handle.read(), `offset ${offset}`).toEqual(events.slice(0, nextSeq))
      await handle.close()
      expect((await readFile(file)).equals(bytes.subarray(0, boundary)), `offset ${offset}`).toBe(true)
    }
  })

  it('every byte of the last record: open(write) repairs, and appending its seq works', async () => {
    const { file, bytes, lineEnds } = await storeOneBatch('tear-last', turns(1))
    const start = lineEnds[lineEnds.length - 2] as number
    for (let keep = 0; keep < bytes.length - start; keep++) {
      await writeFile(file, bytes.subarray(0, start + keep))
      const handle = await app.persistence.open('tear-last', 'write')
      expect(handle.nextSeq).toBe(5)
      expect(handle.recovery?.tornTail.fromSeq).toBe(keep === 0 ? undefined : 5)
      await handle.close()
    }
    const handle = await app.persistence.open('tear-last', 'write')
    await handle.append([turns(1)[5]!])
    await handle.close()
    expect(await readFile(file)).toEqual(bytes)
  })
})

describe('P-076 trailing NUL bytes', () => {
  it('P-076 trailing NUL bytes → torn and cut; the log before them is intact', async () => {
    const { file, bytes } = await storeOneBatch('nul', turns(2))
    await appendFile(file, Buffer.alloc(4096))
    const handle = await app.persistence.open('nul', 'write')
    expect(handle.nextSeq).toBe(12)
    expect(handle.recovery?.tornTail).toMatchObject({ fromSeq: 12, droppedRecords: 1, droppedEvents: 0 })
    await handle.close()
    expect(await readFile(file)).toEqual(bytes)
  })

  it('P-076 cut down to the header → 0 events; appending seq 0 works', async () => {
    const { file, lineEnds } = await storeOneBatch('to-header', [turns(1)[0]!])
    await truncate(file, (lineEnds[1] as number) - 3)
    await appendFile(file, Buffer.alloc(10))
    const handle = await app.persistence.open('to-header', 'write')
    expect(handle.nextSeq).toBe(0)
    expect(handle.recovery?.tornTail.fromSeq).toBe(0)
    expect(await handle.read()).toEqual([])
    expect((await readFile(file)).length).toBe(lineEnds[0])
    await handle.append(turns(1))
    await handle.close()
    expect(await (await app.persistence.open('to-header', 'read')).read()).toEqual(turns(1))
  })
})

describe('P-147 every line carries its checksum', () => {
  it('P-147 each line is <crc32 of its text as 8 hex> <text>; every single-byte change of any line, header included, is SESSION_CORRUPT naming that line', async () => {
    const { file, bytes, lineEnds } = await storeOneBatch('p130', [...turns(1), ...openTurnWithChunks(6, 2, 4)])
    let start = 0
    for (const end of lineEnds) {
      const line = bytes.subarray(start, end - 1)
      expect(line.toString('latin1', 0, 9)).toBe(`${hex8(recordChecksum(line.subarray(9)))} `)
      start = end
    }
    let line = 1
    for (let at = 0; at < bytes.length; at++) {
      if (bytes[at] === 10) {
        line += 1
        continue
      }
      // A digit of a time, a letter of a key or a string: the kinds of change JSON alone lets through.
      const damaged = Buffer.from(bytes)
      damaged[at] = bytes[at] === 0x31 ? 0x32 : (bytes[at] as number) ^ 0x01
      if (damaged[at] === 10) damaged[at] = 0x3f
      await writeFile(file, damaged)
      const error = await app.persistence.inspect('p130').then(() => undefined, (e: unknown) => e)
      expect(isSessionPersistenceError(error, 'SESSION_CORRUPT'), `byte ${at}: ${String(error)}`).toBe(true)
      if (line > 1) expect((error as { line?: number }).line, `byte ${at}`).toBe(line)
    }
    await writeFile(file, bytes)
    expect((await app.persistence.inspect('p130')).checksums).toBe(true)
  })
})

describe('flipped bytes mid-log', () => {
  it('a flipped byte in a record followed by a valid turn/end → SESSION_CORRUPT naming the line; file unchanged by every path', async () => {
    const { file, bytes, lineEnds } = await storeOneBatch('flip', turns(3))
    // record lines 2..12 (1-based, header = line 1) are all followed by the turn/end of turn 3 at line 19
    for (const line of [2, 5, 9, 12]) {
      for (const [delta, flip] of [[0, 0x20], [1, 0x01]] as const) {
        const damaged = Buffer.from(bytes)
        const at = (lineEnds[line - 2] as number) + delta
        damaged[at] = (damaged[at] as number) ^ flip
        await writeFile(file, damaged)
        for (const attempt of [
          () => app.persistence.open('flip', 'write'),
          () => app.persistence.open('flip', 'read'),
          () => app.persistence.inspect('flip'),
          () => app.persistence.readFrom('flip', 0),
        ]) {
          const error = await attempt().then(() => undefined, (e: unknown) => e)
          expect(isSessionPersistenceError(error, 'SESSION_CORRUPT'), `line ${line}: ${String(error)}`).toBe(true)
          expect((error as { line?: number }).line, `line ${line}`).toBe(line)
        }
        expect((await readFile(file)).equals(damaged), `line ${line}`).toBe(true)
      }
    }
  })
})
