import type { Context, Fiber } from '@deepseek-ai/cordis'
import type { SessionEvent } from '@logbook/session'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  SessionFormatUnsupportedError,
  SessionPersistenceCorruptionError,
} from '../src/errors.ts'
import MemorySessionPersistence from '../src/index.ts'
import { dropMemoryStore } from '../src/memory-backend.ts'
import type { PersistenceCommittedEvent } from '../src/types.ts'
import { header, makeApp, turn } from './helpers.ts'
import { memoryDamage } from './memory-damage.ts'

let app: Context
let fiber: Fiber
let storeName: string
let damage: ReturnType<typeof memoryDamage>
let committed: PersistenceCommittedEvent[]

beforeEach(async () => {
  storeName = `read-paths-${Math.random()}`
  damage = memoryDamage(storeName)
  ;({ app } = await makeApp())
  committed = []
  app.on('persistence/committed', event => void committed.push(event))
  fiber = await app.plugin(MemorySessionPersistence, { storeName })
})

afterEach(async () => {
  await fiber.dispose()
  dropMemoryStore(storeName)
})

async function store(id: string, events: SessionEvent[], extra = {}): Promise<void> {
  const handle = await app.sessionPersistence.create(header(id, extra))
  await handle.append(events)
  await handle.close()
}

const errorOf = (promise: Promise<unknown>) => promise.then(() => undefined, (e: unknown) => e)

describe('torn tail versus corruption (02 §4.1)', () => {
  it('a torn last record is reported by read paths and cut by open(write)', async () => {
    await store('s1', [...turn(0, 1), ...turn(4, 2)])
    const before = (await app.sessionPersistence.inspect('s1')).revision
    damage.tearLastRecord('s1', 5)
    const inspection = await app.sessionPersistence.inspect('s1')
    expect(inspection.tornTail).toEqual({ fromSeq: 7, droppedRecords: 1, droppedEvents: 1, detail: 'record is not valid JSON' })
    expect(inspection.events).toHaveLength(7)
    expect(inspection.closers.map(e => e.type)).toEqual(['turn/end'])
    expect(inspection.openTurn).toBe(2)
    expect(inspection.revision).not.toBe(before)
    const reader = await app.sessionPersistence.open('s1', 'read')
    expect(reader.recovery?.tornTail.fromSeq).toBe(7)
    expect((await app.sessionPersistence.inspect('s1')).revision).toBe(inspection.revision)

    const writer = await app.sessionPersistence.open('s1', 'write')
    expect(writer.nextSeq).toBe(7)
    expect(writer.recovery).toEqual({ tornTail: inspection.tornTail })
    expect(committed.at(-1)).toMatchObject({ source: 'repair', fromSeq: 7, toSeq: 7, events: [] })
    expect(writer.revision).not.toBe(inspection.revision)
    await writer.append([turn(4, 2)[3]!])
    expect((await writer.read(0)).map(e => e.seq)).toEqual([0, 1, 2, 3, 4, 5, 6, 7])
    await writer.close()
  })

  it('garbage mid-log followed by a turn/end is corruption naming line and seq; nothing is cut', async () => {
    await store('s1', [...turn(0, 1), ...turn(4, 2)])
    damage.corruptRecord('s1', 3, 'garbage')
    const revision = (await app.sessionPersistence.list()).items[0]!.revision
    const error = await errorOf(app.sessionPersistence.open('s1', 'write'))
    expect(error).toBeInstanceOf(SessionPersistenceCorruptionError)
    expect(error).toMatchObject({ code: 'SESSION_CORRUPT', line: 5, seq: 3, sessionId: 's1' })
    expect(await errorOf(app.sessionPersistence.readFrom('s1', 0))).toMatchObject({ code: 'SESSION_CORRUPT' })
    expect((await app.sessionPersistence.list()).items[0]!.revision).toBe(revision)
    expect(committed.filter(c => c.source === 'repair')).toEqual([])
    // the failed open released its claim and lock
    expect((await errorOf(app.sessionPersistence.open('s1', 'write')))).toMatchObject({ code: 'SESSION_CORRUPT' })
  })

  it('a gapped record is corruption; garbage inside the last open turn is corruption too, and nothing after it is cut', async () => {
    await store('s1', turn(0, 1))
    damage.corruptRecord('s1', 3, 'seq-gap')
    expect(await errorOf(app.sessionPersistence.inspect('s1'))).toMatchObject({ code: 'SESSION_CORRUPT', seq: 3 })
    await store('s2', [...turn(0, 1), ...turn(4, 2).slice(0, 3)])
    damage.corruptRecord('s2', 4, 'garbage')
    const error = await errorOf(app.sessionPersistence.open('s2', 'write'))
    expect(error).toMatchObject({ code: 'SESSION_CORRUPT', line: 6, seq: 4, detail: 'record is not valid JSON at line 6 (seq 4)' })
    expect(committed.filter(c => c.source === 'repair')).toEqual([])
  })

  it('a record whose text changed under its checksum is corruption on every read path', async () => {
    await store('s1', [...turn(0, 1), ...turn(4, 2)])
    damage.corruptRecord('s1', 2, 'checksum')
    for (const read of [() => app.sessionPersistence.inspect('s1'), () => app.sessionPersistence.readFrom('s1', 0), () => app.sessionPersistence.open('s1', 'read')]) {
      const error = await errorOf(read())
      expect(error).toMatchObject({ code: 'SESSION_CORRUPT', line: 4, seq: 2 })
      expect((error as SessionPersistenceCorruptionError).detail).toMatch(/^checksum mismatch \(stored [0-9a-f]{8}, computed [0-9a-f]{8}\) at line 4 \(seq 2\)$/)
    }
    expect((await app.sessionPersistence.list()).items.map(i => i.id)).toEqual(['s1'])
  })
})

describe('format and lineage checks (02 §4.1)', () => {
  it('refuses a newer and an older header version with the exact wording, before any other header check', async () => {
    await store('s1', turn(0, 1))
    damage.setHeaderField('s1', 'version', 3)
    damage.setHeaderField('s1', 'createdAt', 'not a number')
    const newer = await errorOf(app.sessionPersistence.open('s1', 'write'))
    expect(newer).toBeInstanceOf(SessionFormatUnsupportedError)
    expect(newer).toMatchObject({ code: 'SESSION_FORMAT_UNSUPPORTED', direction: 'newer', found: 3, supported: 2 })
    expect((newer as Error).message).toBe('session "s1" was written by a newer Logbook (format 3, this build reads 2): upgrade Logbook')
    damage.setHeaderField('s1', 'version', 0)
    const older = await errorOf(app.sessionPersistence.inspect('s1'))
    expect(older).toMatchObject({ direction: 'older' })
    expect((older as Error).message).toMatch(/format 0, older than 1; there is no upgrade path$/)
  })

  it('refuses an unknown non-ignorable type without cutting a torn tail; keeps an ignorable one', async () => {
    await store('s1', turn(0, 1))
    damage.appendRawRecord('s1', '{"type":"future/event","seq":4,"time":1,"data":{}}')
    damage.appendRawRecord('s1', '{"type":"turn/start","seq":5,"time":1,"data":{"turn":2}}')
    damage.tearLastRecord('s1', 8)
    const error = await errorOf(app.sessionPersistence.open('s1', 'write'))
    expect(error).toMatchObject({ code: 'SESSION_FORMAT_UNSUPPORTED', direction: 'newer', found: 'future/event' })
    expect((error as Error).message).toBe(
      'session "s1" contains event type future/event unknown to this build (written by a newer Logbook or a plugin that is not loaded)',
    )
    expect(committed.filter(c => c.source === 'repair')).toEqual([])
    await store('s2', turn(0, 1))
    damage.appendRawRecord('s2', '{"type":"future/event","seq":4,"time":1,"data":{"x":1},"ignorable":true}')
    expect((await app.sessionPersistence.readFrom('s2', 4))).toEqual([
      { type: 'future/event', seq: 4, time: 1, data: { x: 1 }, ignorable: true },
    ])
  })

  it('requires the lineage marker of a seeded session, on create and on read', async () => {
    const seeded = { parentSession: 'p' as never, isSeeded: true, seedLength: 1 }
    const handle = await app.sessionPersistence.create(header('c1', seeded))
    const refused = await errorOf(handle.append(turn(0, 1)))
    expect(refused).toMatchObject({ code: 'INVALID_ARGUMENT' })
    const marker = { type: 'session/end-seed', seq: 1, time: 2000, data: { inherited: true } } as SessionEvent
    await handle.append([turn(0, 1)[0]!, marker])
    expect(handle.inheritedEventCount).toBe(1)
    await handle.close()
    expect((await app.sessionPersistence.inspect('c1')).inheritedEventCount).toBe(1)
    damage.setHeaderField('c1', 'seedLength', 0)
    expect(await errorOf(app.sessionPersistence.inspect('c1'))).toMatchObject({ code: 'SESSION_CORRUPT', seq: 0 })
  })

  it('a header naming another id, or no header object, is corruption', async () => {
    await store('s1', turn(0, 1))
    damage.setHeaderField('s1', 'id', 'other')
    expect(await errorOf(app.sessionPersistence.open('s1', 'read'))).toMatchObject({ code: 'SESSION_CORRUPT' })
    await store('s2', turn(0, 1))
    damage.corruptHeader('s2')
    expect(await errorOf(app.sessionPersistence.open('s2', 'read'))).toMatchObject({ code: 'SESSION_CORRUPT' })
    const page = await app.sessionPersistence.list()
    expect(page.items).toEqual([])
    expect(page.problems.map(p => p.sessionId).sort()).toEqual(['s1', 's2'])
  })
})
