import { Context } from '@deepseek-ai/cordis'
import { MessageId, Session, SessionId } from '@logbook/session'
import { describe, expect, it } from 'vitest'
import * as invariant from '../src/invariant.ts'
import { requestFromSession, surfaceMessages } from '../src/index.ts'

function session(): Session {
  const s = Session.create(SessionId('req-1'))
  s.append('system/message', { id: MessageId('system-0'), role: 'system', source: { kind: 'system' }, content: [{ type: 'text', text: 'Be brief.' }, { type: 'text', text: 'Be kind.' }] }, { surfaceOp: 'append' })
  s.append('turn/start', { turn: 1 })
  s.append('user/message', { id: MessageId('user-2'), role: 'user', source: { kind: 'user' }, content: [{ type: 'text', text: 'hi' }] }, { surfaceOp: 'append' })
  return s
}

describe('requests from a real Session', () => {
  it('lifts node-0 system out as system and keeps the log\'s frozen message objects', () => {
    const s = session()
    const { system, messages } = surfaceMessages(s)
    expect(system).toBe('Be brief.\nBe kind.')
    expect(messages).toHaveLength(1)
    expect(messages[0]).toBe(s.events[2]!.data)
    const request = requestFromSession(s, { config: { provider: 'p', model: 'm' }, purpose: 'turn' })
    expect(request.sessionId).toBe('req-1')
    expect(request.messages).toEqual(messages)
  })

  it('a session whose node 0 is not a system message sends every message and no system', () => {
    const s = Session.create(SessionId('req-2'))
    s.append('user/message', { id: MessageId('user-0'), role: 'user', source: { kind: 'user' }, content: [{ type: 'text', text: 'x' }] }, { surfaceOp: 'append' })
    expect(surfaceMessages(s)).toEqual({ messages: [s.events[0]!.data] })
  })
})

describe('./invariant', () => {
  it('is a no-op companion named llm-invariant that loads in a real app', async () => {
    const app = new Context()
    const fiber = await app.plugin(invariant)
    expect(invariant.name).toBe('llm-invariant')
    expect(fiber.state).toBe(2)
  })
})
