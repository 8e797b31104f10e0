import { Context } from '@deepseek-ai/cordis'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import SessionStore, { foldSurface, SessionId, type Session, type SessionEvent } from '../src/index.ts'
import { fromScratch, plainUser } from './harness.ts'

type LooseAppend = (type: string, data: unknown, opts?: unknown) => SessionEvent
type SourcesMode = 'all' | 'missing' | 'none' | 'extra'
type Kind = 'user' | 'assistant' | 'system' | 'tool'

/** One step of a random session history; some are valid, some must be rejected. */
type Command =
  | { readonly k: 'user'; readonly text: string }
  | { readonly k: 'system' }
  | { readonly k: 'assistant'; readonly empty: boolean; readonly calls: number }
  | { readonly k: 'tool' }
  | { readonly k: 'log'; readonly which: 'turn' | 'chunk' | 'plugin' }
  | { readonly k: 'header'; readonly valid: boolean }
  | { readonly k: 'replace'; readonly kind: Kind; readonly i: number; readonly span: number; readonly reversed: boolean; readonly sources: SourcesMode }
  | { readonly k: 'badPayload' | 'notJson' | 'badOp' | 'veto' | 'derive' }

const command: fc.Arbitrary<Command> = fc.oneof(
  { arbitrary: fc.record({ k: fc.constant('user' as const), text: fc.oneof(fc.string({ maxLength: 8 }), fc.constant('VETO')) }), weight: 4 },
  { arbitrary: fc.constant({ k: 'system' as const }), weight: 1 },
  { arbitrary: fc.record({ k: fc.constant('assistant' as const), empty: fc.boolean(), calls: fc.integer({ min: 0, max: 2 }) }), weight: 3 },
  { arbitrary: fc.constant({ k: 'tool' as const }), weight: 2 },
  { arbitrary: fc.record({ k: fc.constant('log' as const), which: fc.constantFrom('turn' as const, 'chunk' as const, 'plugin' as const) }), weight: 2 },
  { arbitrary: fc.record({ k: fc.constant('header' as const), valid: fc.boolean() }), weight: 1 },
  {
    arbitrary: fc.record({
      k: fc.constant('replace' as const),
      kind: fc.constantFrom<Kind>('user', 'assistant', 'system', 'tool'),
      i: fc.nat(), span: fc.nat({ max: 3 }), reversed: fc.oneof({ arbitrary: fc.constant(false), weight: 5 }, { arbitrary: fc.constant(true), weight: 1 }),
      sources: fc.oneof({ arbitrary: fc.constantFrom<SourcesMode>('all', 'extra'), weight: 4 }, { arbitrary: fc.constantFrom<SourcesMode>('missing', 'none'), weight: 1 }),
    }),
    weight: 4,
  },
  { arbitrary: fc.constantFrom({ k: 'badPayload' as const }, { k: 'notJson' as const }, { k: 'badOp' as const }, { k: 'veto' as const }), weight: 2 },
  { arbitrary: fc.constant({ k: 'derive' as const }), weight: 2 },
)

const systemMsg = (id: string) => ({ id, role: 'system', source: { kind: 'system' }, content: [{ type: 'text', text: 'rules' }] })
const assistantData = (id: string, empty: boolean, calls: number) => ({
  turn: 1, step: 1,
  message: {
    id, role: 'assistant', source: { kind: 'model', provider: 'p', model: 'm' },
    content: empty ? [] : [{ type: 'text', text: 'ok' }, ...Array.from({ length: calls }, (_, n) => ({ type: 'tool-call', id: `${id}-c${n}`, name: 't', arguments: '{}' }))],
  },
})
const toolData = (id: string, callId: string, text = 'out') => ({
  turn: 1, step: 1,
  message: { id, role: 'user', source: { kind: 'tool', callId }, content: [{ type: 'tool-result', toolCallId: callId, content: [{ type: 'text', text }] }] },
})

/** The derived list equals the from-scratch projection, element by element the same frozen objects. */
function expectDerivedMatchesFold(session: Session): void {
  const derived = session.deriveMessages()
  const expected = fromScratch(session.events)
  expect(derived.length).toBe(expected.length)
  derived.forEach((message, i) => expect(message).toBe(expected[i]))
}

/** The append (type, data, opts) a command stands for, against the current state. */
function plan(session: Session, cmd: Command, n: number): [string, unknown, unknown] | undefined {
  const s = session.seq
  switch (cmd.k) {
    case 'user': return ['user/message', plainUser(`u${n}`, cmd.text), { surfaceOp: 'append' }]
    case 'system': return ['system/message', systemMsg(`s${n}`), { surfaceOp: 'append' }]
    case 'assistant': return ['assistant/message', assistantData(`a${n}`, cmd.empty, cmd.calls), { surfaceOp: 'append', sourceEventSeqs: [] }]
    case 'tool': return ['tool/result', toolData(`r${n}`, `c${n}`), { surfaceOp: 'append' }]
    case 'log':
      if (cmd.which === 'turn') return ['turn/start', { turn: n + 1 }, undefined]
      if (cmd.which === 'chunk') return ['assistant/chunk', { turn: 1, step: 1, chunk: { type: 'text-delta', index: 0, text: 'x' } }, undefined]
      return ['plugin/x', { n }, undefined]
    case 'header':
      return ['request/header', { header: { config: cmd.valid ? { provider: 'p', model: `m${n}` } : { provider: 'p' } }, reason: 'change' }, undefined]
    case 'badPayload': return ['user/message', { role: 'user', source: { kind: 'user' }, content: [{ type: 'text', text: 'no id' }] }, { surfaceOp: 'append' }]
    case 'notJson': return ['plugin/x', { big: 1n }, undefined]
    case 'badOp': return ['user/message', plainUser(`u${n}`, 'x'), { surfaceOp: 'bogus' }]
    case 'veto': return ['plugin/veto', {}, undefined]
    case 'derive': return undefined
    case 'replace': {
      const nodes = session.surface.nodes
      const first = cmd.i % Math.max(nodes.length, 1)
      const last = Math.min(first + cmd.span, nodes.length - 1)
      const start = nodes.length ? nodes[cmd.reversed ? last : first]! : s + 1
      const end = nodes.length ? nodes[cmd.reversed ? first : last]! : s + 2
      const from = nodes.indexOf(start)
      const to = nodes.indexOf(end)
      const shadowed = from >= 0 && to >= from ? nodes.slice(from, to + 1) : [start, end]
      const sources = cmd.sources === 'all' ? [...shadowed]
        : cmd.sources === 'missing' ? shadowed.slice(1)
          : cmd.sources === 'extra' ? [...new Set([...shadowed, 0].filter(x => x < s))]
            : undefined
      const opts = { surfaceOp: { op: 'replace', start, end }, ...(sources === undefined ? {} : { sourceEventSeqs: sources }) }
      switch (cmd.kind) {
        case 'user': return ['user/message', plainUser(`su${n}`, 'summary'), opts]
        case 'system': return ['system/message', systemMsg(`ss${n}`), opts]
        case 'assistant': return ['assistant/message', assistantData(`sa${n}`, false, 0), opts]
        case 'tool': {
          const target = session.events[start] as SessionEvent<'tool/result'> | undefined
          if (target?.type !== 'tool/result') return ['tool/result', toolData(`sr${n}`, `c${n}`), opts]
          const block = target.data.message.content[0]
          return ['tool/result', { ...target.data, message: { ...target.data.message, id: `sr${n}`, content: [{ ...block, content: [{ type: 'text', text: 'pruned' }] }] } }, opts]
        }
      }
    }
  }
}

async function publishedSession(): Promise<{ session: Session; delivered: SessionEvent[] }> {
  const app = new Context()
  await app.plugin(SessionStore)
  app.sessions.registerEventType('plugin/x')
  app.sessions.registerEventType('plugin/veto')
  app.sessions.addCheck((_session, event) => {
    if (event.type === ('plugin/veto' as string)) throw new Error('vetoed by check')
    if (event.type === 'user/message' && event.data.content[0]?.type === 'text' && event.data.content[0].text === 'VETO') {
      throw new Error('vetoed after surface validation')
    }
  })
  const delivered: SessionEvent[] = []
  app.on('session/event', (_session, event) => void delivered.push(event))
  return { session: app.sessions.create(SessionId('prop')), delivered }
}

describe('properties', () => {
  it('S-071 deriveMessages always equals the fold of the surface projected through deriveEventMessage', async () => {
    await fc.assert(fc.asyncProperty(fc.array(command, { minLength: 10, maxLength: 60, size: 'max' }), async (commands) => {
      const { session } = await publishedSession()
      commands.forEach((cmd, n) => {
        const append = plan(session, cmd, n)
        if (append === undefined) return expectDerivedMatchesFold(session)
        try {
          (session.append as unknown as LooseAppend).call(session, ...append)
        } catch {
          // Rejections are the other property's concern; here only the derived list matters.
        }
        if (n % 3 === 0) expectDerivedMatchesFold(session)
      })
      expectDerivedMatchesFold(session)
      expect([...session.surface.nodes]).toEqual(foldSurface(session.events).nodes)
    }), { numRuns: 150 })
  })

  it('a rejected append leaves the log, the surface, the caches and the listeners untouched', async () => {
    let rejections = 0
    await fc.assert(fc.asyncProperty(fc.array(command, { minLength: 10, maxLength: 60, size: 'max' }), async (commands) => {
      const { session, delivered } = await publishedSession()
      commands.forEach((cmd, n) => {
        const append = plan(session, cmd, n)
        if (append === undefined) return expectDerivedMatchesFold(session)
        const view = session.events
        const seq = session.seq
        const surface = session.surface
        const header = session.requestHeader()
        const notified = delivered.length
        let committed: SessionEvent | undefined
        try {
          committed = (session.append as unknown as LooseAppend).call(session, ...append)
        } catch {
          rejections++
          expect(session.events).toBe(view)
          expect(session.seq).toBe(seq)
          expect(session.surface).toBe(surface)
          expect(session.requestHeader()).toBe(header)
          expect(delivered.length).toBe(notified)
          expectDerivedMatchesFold(session)
          return
        }
        expect(committed).toBe(session.events.at(-1))
        expect(delivered.at(-1)).toBe(committed)
        expect(delivered.length).toBe(notified + 1)
      })
      expect(delivered).toEqual([...session.events])
      expectDerivedMatchesFold(session)
    }), { numRuns: 150 })
    // The generator must really produce rejections, or the property proves nothing.
    expect(rejections).toBeGreaterThan(100)
  })
})
