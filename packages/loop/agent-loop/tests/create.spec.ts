import { describe, expect, it } from 'vitest'
import { SessionId } from '@logbook/session'
import { boot, OPTIONS, rejection } from './helpers.ts'

describe('create', () => {
  it('rejects SESSION_ALREADY_EXISTS for a live id or a stored log, before creating anything', async () => {
    const { app } = await boot({ memory: 'create-exists', script: [{ text: 'a', repeat: true }] })
    app.sessions.create(SessionId('live'))
    expect(await rejection(app.agents.create({ sessionId: 'live', options: OPTIONS }))).toMatchObject({
      name: 'AgentError', code: 'SESSION_ALREADY_EXISTS', message: 'session "live" already exists',
    })
    const stored = await app.agents.create({ sessionId: 'stored', options: OPTIONS })
    await stored.send('hi')
    await stored.dispose()
    expect(await rejection(app.agents.create({ sessionId: 'stored', options: OPTIONS }))).toMatchObject({
      code: 'SESSION_ALREADY_EXISTS', message: 'session "stored" already exists',
    })
    expect(app.sessions.get(SessionId('stored'))).toBeUndefined()
  })

  it('validates options and the id first: INVALID_OPTIONS, INVALID_SESSION_ID', async () => {
    const { app } = await boot({ script: [] })
    const cases: [unknown, string][] = [
      [{ provider: 'p' }, 'invalid agent options: model is required'],
      [{ provider: 'p', model: 'm', maxTokens: 0 }, 'invalid agent options: maxTokens must be a positive safe integer'],
      [{ provider: 'p', model: 'm', tools: 'all' }, 'invalid agent options: tools must be an array of non-empty strings'],
      [{ provider: 'p', model: 'm', temperature: 1 }, 'invalid agent options: unknown option "temperature"'],
    ]
    for (const [options, message] of cases) {
      expect(await rejection(app.agents.create({ options: options as never }))).toMatchObject({ code: 'INVALID_OPTIONS', message })
    }
    expect(await rejection(app.agents.create({ sessionId: 'a/b', options: OPTIONS }))).toMatchObject({ code: 'INVALID_SESSION_ID' })
    expect(app.sessions.list()).toEqual([])
  })

  it('mints a UUID id without sessionId and takes meta and a seed', async () => {
    const { app } = await boot({ script: [{ text: 'a' }] })
    const seeded = await app.agents.create({
      options: OPTIONS,
      meta: { cwd: '/home/user' },
      seed: [{ type: 'turn/start', seq: 0, time: 1, data: { turn: 1 } }, { type: 'turn/end', seq: 1, time: 1, data: { turn: 1, reason: { kind: 'completed' } } }],
    })
    expect(seeded.id).toMatch(/^[0-9a-f-]{36}$/)
    expect(seeded.session.header.cwd).toBe('/home/user')
    expect((await seeded.send('next')).turn).toBe(2)
    expect(() => { seeded.options = { provider: '' } as never }).toThrow('invalid agent options: provider must be a non-empty string')
  })
})
