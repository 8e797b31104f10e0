/** F-034: the invariant companion (spec 04 §7) accepts real indexing and reports a step past the durable cursor. */
import { Context, type Exporter, Logger } from '@deepseek-ai/cordis'
import SessionStore, { SessionId } from '@logbook/session'
import MemorySessionPersistence from '@logbook/session-persistence'
import { describe, expect, it } from 'vitest'
import SessionSearch from '../src/index.ts'
import * as invariant from '../src/invariant.ts'
import { indexedViolations } from '../src/invariant.ts'
import { turn } from './helpers.ts'

const step = { sessionId: 's', source: 'live' as const, reset: false, fromSeq: 2, toSeq: 5, rows: 1 }

describe('session-search-invariant', () => {
  it('F-034 a step past the durable cursor, ending before it starts, or a reset not from 0 is a violation', async () => {
    expect(indexedViolations(step, 5)).toEqual([])
    expect(indexedViolations(step, undefined)).toEqual([])
    expect(indexedViolations({ ...step, source: 'stored' }, 3)).toEqual([])
    expect(indexedViolations(step, 4)).toEqual(['session "s": indexed up to seq 5, past the durable cursor 4'])
    expect(indexedViolations({ ...step, toSeq: 1 }, 9)).toEqual(['session "s": indexing step ends at seq 1 before it starts (2)'])
    expect(indexedViolations({ ...step, reset: true }, 9)).toEqual(['session "s": a reset indexing step starts at seq 2, not 0'])

    const app = new Context()
    const logs: string[] = []
    const exporter: Exporter = { colors: false, levels: { default: 2 }, export: message => logs.push(`${message.type} ${Logger.format(exporter, message)}`) }
    app.logger.exporter(exporter)
    await app.plugin(SessionStore)
    await app.plugin(MemorySessionPersistence, { storeName: 'invariant' } as never)
    await app.plugin(invariant)
    await app.plugin(SessionSearch, { indexDelayMs: 0 } as never)
    const session = app.sessions.create(SessionId('s'))
    turn(session, 1, { prompt: 'hello', reply: 'ok' })
    await app.sessions.flush(session)
    expect((await app.sessionSearch.query('hello')).length).toBe(1)
    expect(logs).toEqual([])
    app.emit('search/indexed', { ...step, fromSeq: 0, toSeq: session.seq + 3 })
    expect(logs).toEqual([`error session-search-invariant: session "s": indexed up to seq ${session.seq + 3}, past the durable cursor ${session.seq}`])
  })
})
