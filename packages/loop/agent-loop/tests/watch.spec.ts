import { describe, expect, it } from 'vitest'
import type { Session, SessionEvent } from '@logbook/session'
import { boot, OPTIONS, rejection } from './helpers.ts'

/** A log-only event from another writer (not the loop). */
function mark(session: Session): void {
  (session.append as (type: string, data: unknown, opts: unknown) => unknown)('test/mark', {}, { ignorable: true })
}

async function collect(iterator: AsyncIterable<SessionEvent>): Promise<SessionEvent[]> {
  const out: SessionEvent[] = []
  for await (const event of iterator) out.push(event)
  return out
}

describe('ctx.agents.watch', () => {
  it('L-123 yields every committed event of the session, the loop\'s and other writers\', in order, and ends at disposal', async () => {
    const { app } = await boot({ script: [{ text: 'hi', repeat: true }] })
    const agent = await app.agents.create({ sessionId: 's1', options: OPTIONS })
    const before = agent.session.seq
    const watched = collect(app.agents.watch('s1'))
    await agent.send('one')
    mark(agent.session)
    await agent.dispose()
    const events = await watched
    expect(events.map(e => e.seq)).toEqual(agent.session.events.slice(before).map(e => e.seq))
    expect(events.every((e, i) => e === agent.session.events[before + i])).toBe(true)
        expect(events.at(-1)!.type).toBe('test/mark')
  })

  it('L-123 fromSeq replays the logged events first, then the live ones, without a gap; return() and an aborted signal end it', async () => {
    const { app } = await boot({ script: [{ text: 'hi', repeat: true }] })
    const agent = await app.agents.create({ sessionId: 's1', options: OPTIONS })
    await agent.send('one')
    const logged = agent.session.seq
    const iterator = app.agents.watch('s1', { fromSeq: 2 })
    await agent.send('two')
    const seen: number[] = []
    for await (const event of iterator) {
      seen.push(event.seq)
      if (event.type === 'turn/end' && event.seq >= logged) break
    }
    expect(seen).toEqual(agent.session.events.slice(2).map(e => e.seq))
    expect(await iterator.next()).toEqual({ done: true, value: undefined })

    const controller = new AbortController()
    const aborted = app.agents.watch('s1', { signal: controller.signal })
    const pending = aborted.next()
    controller.abort()
    expect(await pending).toEqual({ done: true, value: undefined })
    mark(agent.session)
    expect(await aborted.next()).toEqual({ done: true, value: undefined })
  })

  it('L-124 the buffer is bounded: a reader more than watchBufferEvents behind gets the held events, then WATCH_OVERFLOW naming where to resume', async () => {
    const { app } = await boot({ script: [], config: { watchBufferEvents: 3 } })
    const session = app.sessions.create('solo' as never)
    const iterator = app.agents.watch('solo')
    for (let i = 0; i < 5; i++) mark(session)
    const held = [await iterator.next(), await iterator.next(), await iterator.next()].map(r => (r.value as SessionEvent).seq)
    expect(held).toEqual([0, 1, 2])
    const error = await rejection(iterator.next())
    expect(error.code).toBe('WATCH_OVERFLOW')
    expect(error.message).toBe('watch of session "solo" fell behind: more than 3 unread events; watch again with fromSeq 3')
    expect(await iterator.next()).toEqual({ done: true, value: undefined })
  })

  it('L-123 a session that is not live → SESSION_NOT_LIVE; a bad fromSeq → INVALID_WATCH; unloading the loop ends open watches', async () => {
    const { app, agents } = await boot({ script: [] })
    expect(() => app.agents.watch('nope')).toThrow(expect.objectContaining({ code: 'SESSION_NOT_LIVE', message: 'session "nope" is not live in this process' }))
    app.sessions.create('solo' as never)
    expect(() => app.agents.watch('solo', { fromSeq: -1 })).toThrow(expect.objectContaining({ code: 'INVALID_WATCH' }))
    const iterator = app.agents.watch('solo')
    const pending = iterator.next()
    await agents.dispose()
    expect(await pending).toEqual({ done: true, value: undefined })
  })
})
