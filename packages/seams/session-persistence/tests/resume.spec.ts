import { openTurnClosers, type Session, type SessionEvent, type SessionId } from '@logbook/session'
import { describe, expect, it } from 'vitest'
import MemorySessionPersistence from '../src/index.ts'
import { dropMemoryStore, memoryStore } from '../src/memory-backend.ts'
import { header, makeApp, turn } from './helpers.ts'

describe('resume protocol end to end (memory, 02 §4.3)', () => {
  it('stores a live session, resumes it with closers through a handed-off handle, and continues', async () => {
    const storeName = `resume-${Math.random()}`
    {
      const { app } = await makeApp()
      await app.plugin(MemorySessionPersistence, { storeName })
      const session = app.sessions.create('s1' as SessionId)
      session.append('turn/start', { turn: 1 })
      session.append('step/start', { turn: 1, step: 1 })
      await app.sessions.flush(session)
      expect(memoryStore(storeName).sessions.get('s1')?.nextSeq).toBe(2)
      await app.registry.get(MemorySessionPersistence)!.fibers[Symbol.iterator]().next().value!.dispose()
    }
    const { app } = await makeApp()
    await app.plugin(MemorySessionPersistence, { storeName })
    const persistence = app.sessionPersistence
    const handle = await persistence.open('s1', 'write')
    expect(handle.nextSeq).toBe(2)
    const events = await handle.read(0)
    const closers = openTurnClosers(events, { kind: 'interrupted' })
    expect(closers.map(e => e.type)).toEqual(['step/end', 'turn/end'])
    await handle.append(closers)
    const inspection = await persistence.inspect('s1')
    expect(inspection.revision).toBe(handle.revision)
    expect(inspection.claim).toBe('this-process')
    const session: Session = app.sessions.prepare('s1' as SessionId, {
      seed: [...events, ...closers], meta: handle.header, inheritedEventCount: handle.inheritedEventCount, eventState: handle.eventState,
    })
    handle.handOff()
    app.sessions.enter(session)
    app.sessions.announce(session)
    session.append('turn/start', { turn: 2 })
    await app.sessions.flush(session)
    const stored = await persistence.readFrom('s1', 0)
    expect(stored.map((e: SessionEvent) => e.type)).toEqual([
      'turn/start', 'step/start', 'step/end', 'turn/end', 'session/end-seed', 'turn/start',
    ])
    await expect(handle.read(0)).rejects.toMatchObject({ code: 'SESSION_HANDLE_CLOSED' })
    dropMemoryStore(storeName)
  })

  it('create, append and reopen for read', async () => {
    const { app } = await makeApp()
    await app.plugin(MemorySessionPersistence, {})
    const persistence = app.sessionPersistence
    const handle = await persistence.create(header('h1'))
    expect(handle.revision).toBeNull()
    await handle.append(turn(0, 1))
    await handle.close()
    const reader = await persistence.open('h1', 'read')
    expect((await reader.read(0)).map(e => e.seq)).toEqual([0, 1, 2, 3])
    const page = await persistence.list()
    expect(page.items.map(i => [i.id, i.eventCount, i.updatedAt])).toEqual([['h1', 4, 2000]])
  })
})
