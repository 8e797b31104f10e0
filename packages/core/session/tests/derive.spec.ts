import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { CallId, deriveEventMessage, foldSurface, type Message, Session, SessionError } from '../src/index.ts'
import { appendAs, assistantMsg, ev, resultMsg, sid, systemMsg, userMsg } from './harness.ts'

const step = { turn: 1, step: 1 }

describe('derived messages', () => {
  it('S-068 a full turn derives system, user, assistant and tool result, in order', () => {
    const s = Session.create(sid('s'))
    s.append('turn/start', { turn: 1 })
    const sys = s.append('system/message', systemMsg('s0'), { surfaceOp: 'append' })
    const user = s.append('user/message', userMsg('u1'), { surfaceOp: 'append' })
    s.append('assistant/chunk', { ...step, chunk: { type: 'text-delta', index: 0, text: 'ok' } })
    const assistant = s.append('assistant/message', { ...step, message: assistantMsg('a1', 'ok', ['c1']) },
      { surfaceOp: 'append', sourceEventSeqs: [3] })
    s.append('tool/call', { ...step, callId: CallId('c1'), name: 'read', arguments: '{}' })
    const result = s.append('tool/result', { ...step, message: resultMsg('r1', 'c1') }, { surfaceOp: 'append', sourceEventSeqs: [5] })
    s.append('turn/end', { turn: 1, reason: { kind: 'completed' } })
    const messages = s.deriveMessages()
    expect(messages).toEqual([systemMsg('s0'), userMsg('u1'), assistantMsg('a1', 'ok', ['c1']), resultMsg('r1', 'c1')])
    expect(messages[0]).toBe(sys.data)
    expect(messages[1]).toBe(user.data)
    expect(messages[2]).toBe(assistant.data.message)
    expect(messages[3]).toBe(result.data.message)
    expect(s.events.map(deriveEventMessage).filter(m => m !== null)).toEqual(messages)
  })

  it('S-069 each call returns a fresh array of the stored frozen objects', () => {
    const s = Session.create(sid('s'))
    const user = s.append('user/message', userMsg('u1'), { surfaceOp: 'append' })
    const a = s.deriveMessages()
    const b = s.deriveMessages()
    expect(a).not.toBe(b)
    expect(a[0]).toBe(user.data)
    expect(b[0]).toBe(user.data)
    expect(Object.isFrozen(a[0])).toBe(true)
    a.push(userMsg('extra'))
    expect(s.deriveMessages()).toHaveLength(1)
  })

  it('S-070 after a replace the list shows the replacement and earlier arrays are unchanged', () => {
    const s = Session.create(sid('s'))
    s.append('user/message', userMsg('u1'), { surfaceOp: 'append' })
    s.append('user/message', userMsg('u2'), { surfaceOp: 'append' })
    const before = s.deriveMessages()
    const summary = s.append('user/message', userMsg('sum', 'summary'),
      { surfaceOp: { op: 'replace', start: 0, end: 1 }, sourceEventSeqs: [0, 1] })
    s.append('user/message', userMsg('u3'), { surfaceOp: 'append' })
    const after = s.deriveMessages()
    expect(after.map(m => m.id)).toEqual(['sum', 'u3'])
    expect(after[0]).toBe(summary.data)
    expect(before.map(m => m.id)).toEqual(['u1', 'u2'])
  })

  it('S-071 property: deriveMessages equals the projection of foldSurface, whatever the history', () => {
    type Op = { kind: 'user' | 'system' | 'assistant' | 'empty' | 'result' | 'plugin' | 'derive' }
      | { kind: 'replace'; a: number; b: number; as: 'user' | 'assistant' | 'system' }
    const op: fc.Arbitrary<Op> = fc.oneof(
      fc.constantFrom<Op>({ kind: 'user' }, { kind: 'system' }, { kind: 'assistant' }, { kind: 'empty' },
        { kind: 'result' }, { kind: 'plugin' }, { kind: 'derive' }),
      fc.record({ kind: fc.constant('replace' as const), a: fc.nat(40), b: fc.nat(40),
        as: fc.constantFrom('user' as const, 'assistant' as const, 'system' as const) }),
    )
    const fromScratch = (s: Session): Message[] => {
      const events = s.events
      return foldSurface(events).nodes.map(seq => deriveEventMessage(events[seq]!)).filter((m): m is Message => m !== null)
    }
    fc.assert(fc.property(fc.array(op, { maxLength: 60 }), ops => {
      const s = Session.create(sid('p'))
      let n = 0
      for (const o of ops) {
        const id = `m${n++}`
        switch (o.kind) {
          case 'user': s.append('user/message', userMsg(id), { surfaceOp: 'append' }); break
          case 'system': s.append('system/message', systemMsg(id), { surfaceOp: 'append' }); break
          case 'assistant': s.append('assistant/message', { ...step, message: assistantMsg(id) }, { surfaceOp: 'append' }); break
          case 'empty': s.append('assistant/message', { ...step, message: assistantMsg(id, '') }, { surfaceOp: 'append' }); break
          case 'result': s.append('tool/result', { ...step, message: resultMsg(id, 'c') }, { surfaceOp: 'append' }); break
          case 'plugin': appendAs(s, 'plugin/x', {}); break
          case 'derive': expect(s.deriveMessages()).toEqual(fromScratch(s)); break
          case 'replace': {
            const nodes = s.surface.nodes
            if (nodes.length === 0) break
            const [i, j] = [Math.min(o.a, o.b) % nodes.length, Math.max(o.a, o.b) % nodes.length]
            const [from, to] = i <= j ? [i, j] : [j, i]
            const sources = nodes.slice(from, to + 1)
            const surfaceOp = { op: 'replace' as const, start: nodes[from]!, end: nodes[to]! }
            try {
              if (o.as === 'user') s.append('user/message', userMsg(id), { surfaceOp, sourceEventSeqs: sources })
              else if (o.as === 'system') s.append('system/message', systemMsg(id), { surfaceOp, sourceEventSeqs: sources })
              else s.append('assistant/message', { ...step, message: assistantMsg(id) }, { surfaceOp, sourceEventSeqs: sources })
            } catch (error) {
              if (!(error instanceof SessionError) || error.code !== 'INVALID_SURFACE') throw error
            }
          }
        }
      }
      const derived = s.deriveMessages()
      const expected = fromScratch(s)
      expect(derived).toEqual(expected)
      derived.forEach((message, i) => expect(message).toBe(expected[i]))
    }), { numRuns: 150 })
  })

  it('S-087 requestHeader and requestContext return the latest data, frozen, or undefined', () => {
    const s = Session.create(sid('s'))
    expect([s.requestHeader(), s.requestContext()]).toEqual([undefined, undefined])
    const h1 = { config: { provider: 'p', model: 'm1' } }
    const h2 = { config: { provider: 'p', model: 'm2', temperature: 0.2 }, tools: [{ name: 't', description: 'd', parameters: {} }] }
    s.append('request/header', { header: h1, reason: 'initial' })
    s.append('request/context', { provider: 'p', model: 'm1', contextWindow: 1000 })
    s.append('request/header', { header: h2, reason: 'change' })
    expect(s.requestHeader()).toEqual(h2)
    expect(s.requestHeader()).not.toBe(h2)
    expect(Object.isFrozen(s.requestHeader()) && Object.isFrozen(s.requestHeader()!.config)).toBe(true)
    expect(s.requestContext()).toEqual({ provider: 'p', model: 'm1', contextWindow: 1000 })
    expect(Object.isFrozen(s.requestContext())).toBe(true)
    const restored = Session.fromRestore(sid('s'), {
      seed: JSON.parse(JSON.stringify(s.events)) as never, header: s.header, inheritedEventCount: 0, eventState: 'detached',
    })
    expect([restored.requestHeader(), restored.requestContext()]).toEqual([h2, s.requestContext()])
    const seeded = Session.create(sid('c'), { seed: [ev('request/context', 0, { provider: 'q', model: 'n' })] })
    expect([seeded.requestHeader(), seeded.requestContext()]).toEqual([undefined, { provider: 'q', model: 'n' }])
  })
})
