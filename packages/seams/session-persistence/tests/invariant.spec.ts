import type { SessionEvent, SessionId } from '@logbook/session'
import { describe, expect, it } from 'vitest'
import MemorySessionPersistence from '../src/index.ts'
import * as invariant from '../src/invariant.ts'
import { header, makeApp, turn } from './helpers.ts'

const violations = (logs: { name: string; type: string; args: unknown[] }[]) =>
  logs.filter(m => m.name === 'session-persistence-invariant' && m.type === 'error').map(m => String(m.args[0]))

describe('session-persistence invariant companion (02 §8)', () => {
  it('stays silent for a live writer, a resume through a handle and repeated claims', async () => {
    const { app, logs } = await makeApp()
    await app.plugin(MemorySessionPersistence, {})
    await app.plugin(invariant)
    const session = app.sessions.create('i1' as SessionId)
    session.append('turn/start', { turn: 1 })
    await app.sessions.flush(session)
    session.append('step/start', { turn: 1, step: 1 })
    await app.sessions.flush(session)
    const h = await app.sessionPersistence.create(header('i2'))
    await h.append(turn(0, 1))
    await h.append(turn(4, 2))
    await h.close()
    const again = await app.sessionPersistence.open('i2', 'write')
    await again.close()
    expect(violations(logs)).toEqual([])
  })

  it('logs a commit gap, a cursor past the live log, a foreign event object and a second claim', async () => {
    const { app, logs } = await makeApp()
    await app.plugin(MemorySessionPersistence, {})
    await app.plugin(invariant)
    const session = app.sessions.create('i3' as SessionId)
    session.append('turn/start', { turn: 1 })
    await app.sessions.flush(session)
    const base = { sessionId: 'i3', source: 'live' as const, revision: 'r', physicalLength: 1, ownerId: 'fake-owner' }
    app.emit('persistence/committed', { ...base, fromSeq: 0, toSeq: 1, events: [session.events[0]!] })
    app.emit('persistence/committed', { ...base, fromSeq: 2, toSeq: 3, events: [{ ...session.events[0]! } as SessionEvent] })
    app.emit('persistence/claimed', { sessionId: 'i3', ownerId: 'intruder', kind: 'handle' })
    expect(violations(logs)).toEqual([
      'session-persistence-invariant: session "i3": live commit starts at seq 2; the previous one ended at 1',
      'session-persistence-invariant: session "i3": durable cursor 3 passed the live log (seq 1)',
      'session-persistence-invariant: session "i3": stored event at seq 2 is not the live session\'s event',
      expect.stringMatching(/^session-persistence-invariant: session "i3": claimed by intruder while .+ holds it$/),
    ])
  })

  it('logs a handle commit that keeps the revision', () => {
    const event = { sessionId: 'x', source: 'handle' as const, fromSeq: 4, toSeq: 5, events: [{} as SessionEvent], revision: 'r1', physicalLength: 1, ownerId: 'o' }
    expect(invariant.commitViolations(event, { toSeq: 4, revision: 'r1' }, undefined)).toEqual(['session "x": handle commit kept revision r1'])
    expect(invariant.commitViolations(event, { toSeq: 4, revision: 'r0' }, undefined)).toEqual([])
  })
})
