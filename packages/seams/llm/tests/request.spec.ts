import type { Message, SessionEvent, SessionSurface } from '@logbook/session'
import { describe, expect, it } from 'vitest'
import { requestFromSession, surfaceMessages, type SurfaceSource } from '../src/index.ts'
import { userText } from './helpers.ts'

/** A detached stand-in exposing exactly what the builder reads. */
function fakeSession(events: SessionEvent[], nodes: number[]): SurfaceSource {
  const surface: SessionSurface = { nodes, replaceGeneration: 0 }
  return {
    id: 's1',
    events,
    surface,
    deriveMessages: () => nodes.map(seq => events[seq]!.data as Message),
  }
}

const system = (seq: number, ...texts: string[]): SessionEvent => ({
  type: 'system/message', seq, time: 0, surfaceOp: 'append',
  data: { id: `system-${seq}` as never, role: 'system', source: { kind: 'system' }, content: texts.map(text => ({ type: 'text', text })) },
})
const user = (seq: number, text: string): SessionEvent => ({
  type: 'user/message', seq, time: 0, surfaceOp: 'append', data: userText(`user-${seq}`, text) as never,
})

describe('requests from a session surface', () => {
  it('sends a node-0 system message as system, its text blocks joined by \\n', () => {
    const events = [system(0, 'be brief', 'be kind'), user(1, 'hi')]
    const derived = surfaceMessages(fakeSession(events, [0, 1]))
    expect(derived).toEqual({ system: 'be brief\nbe kind', messages: [events[1]!.data] })
    expect(derived.messages[0]).toBe(events[1]!.data)
  })

  it('keeps a system message that is not node 0 in messages, and sends no system without one', () => {
    const events = [user(0, 'hi'), system(1, 'later')]
    expect(surfaceMessages(fakeSession(events, [0, 1]))).toEqual({ messages: [events[0]!.data, events[1]!.data] })
    expect(surfaceMessages(fakeSession([], []))).toEqual({ messages: [] })
  })

  it('requestFromSession adds config, purpose and the session id', () => {
    const events = [system(0, 'sys'), user(1, 'hi')]
    const req = requestFromSession(fakeSession(events, [0, 1]), { config: { provider: 'p', model: 'm' }, purpose: 'turn' })
    expect(req).toEqual({ config: { provider: 'p', model: 'm' }, purpose: 'turn', system: 'sys', messages: [events[1]!.data], sessionId: 's1' })
  })
})
