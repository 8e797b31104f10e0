import MemorySessionPersistence from '@logbook/session-persistence'
import { describe, expect, it } from 'vitest'
import * as invariant from '../src/invariant.ts'
import { makeApp, nextCheckpoint, sid, turn } from './helpers.ts'

async function appWithInvariant() {
  const env = await makeApp({}, async root => {
    await root.plugin(MemorySessionPersistence, {})
  })
  await env.app.plugin(invariant)
  return env
}

describe('./invariant: a projection checkpoint is never ahead of the durable log', () => {
  it('exports the companion shape', () => {
    expect(invariant.name).toBe('session-projection-invariant')
    expect(invariant.inject).toEqual(['sessions'])
  })

  it('L-121 real checkpoint writes pass: no error is logged', async () => {
    const { app, logs } = await appWithInvariant()
    const s = app.sessions.create(sid('s'))
    const first = nextCheckpoint(app)
    turn(s, 1)
    await first
    const second = nextCheckpoint(app)
    turn(s, 2, ['c1'])
    expect((await second).seq).toBe(s.seq - 1)
    expect(logs).toEqual([])
  })

  it('L-121 a checkpoint at or past the durable cursor, or with a wrong anchor, is logged at error level', async () => {
    const { app, logs } = await appWithInvariant()
    const s = app.sessions.create(sid('s'))
    turn(s, 1)
    await app.sessions.flush(s)
    const end = s.events.at(-1)!
    app.emit('projection/checkpointed', { sessionId: 's', seq: s.seq, anchor: { time: end.time, type: 'turn/end' }, keys: [] })
    app.emit('projection/checkpointed', { sessionId: 's', seq: end.seq, anchor: { time: end.time, type: 'turn/start' }, keys: [] })
    expect(logs).toEqual([
      expect.stringContaining(`session-projection-invariant: session "s": projection checkpoint at seq ${s.seq} is not below the durable cursor ${s.seq}`),
      expect.stringContaining(`session-projection-invariant: session "s": projection checkpoint at seq ${s.seq} names no event of the live log`),
      expect.stringContaining(`session-projection-invariant: session "s": projection checkpoint anchor turn/start@${end.time} does not match the event at seq ${end.seq} (turn/end@${end.time})`),
    ])
  })

  it('checkpointViolations is pure: no cursor and no live session means nothing to check', () => {
    const event = { sessionId: 'x', seq: 3, anchor: { time: 1, type: 'a/b' }, keys: [] }
    expect(invariant.checkpointViolations(event, undefined, undefined)).toEqual([])
    expect(invariant.checkpointViolations(event, 4, { time: 1, type: 'a/b' })).toEqual([])
    expect(invariant.checkpointViolations(event, 3, { time: 1, type: 'a/b' })).toHaveLength(1)
  })
})
