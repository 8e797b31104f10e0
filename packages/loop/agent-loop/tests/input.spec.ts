import { describe, expect, it } from 'vitest'
import type { Context } from '@deepseek-ai/cordis'
import type { MessageId, Session, SessionEvent, UserMessage } from '@logbook/session'
import type { AgentHandle } from '../src/index.ts'
import { boot, deferred, OPTIONS, ofType, shape, tool } from './helpers.ts'

function userMessage(id: string, text: string, source: UserMessage['source'] = { kind: 'user' }): UserMessage {
  return { id: id as MessageId, role: 'user', source, content: [{ type: 'text', text }] }
}

/** Another plugin of the app: it appends to sessions it finds in `ctx.sessions`, never through the agent. */
async function client(app: Context): Promise<{ give(id: string, text: string): SessionEvent }> {
  let ctx!: Context
  await app.plugin({ name: 'other-client', inject: ['sessions'], apply: (c: Context) => { ctx = c } })
  return {
    give: (id, text) => ctx.sessions.get(id as never)!.append('user/message', userMessage(`ext-${text}`, text), { surfaceOp: 'append' }),
  }
}

function turnEnded(app: Context, agent: AgentHandle, count: number): Promise<void> {
  return new Promise(resolve => {
    app.on('session/event', (session: Session, event: SessionEvent) => {
      if (session === agent.session && event.type === 'turn/end' && ofType(session, 'turn/end').length >= count) resolve()
    })
  })
}

describe('input from any client in the process', () => {
  it('L-130 a user message another plugin appends to an idle agent\'s session starts a turn on it', async () => {
    const { app } = await boot({ script: [{ match: { lastUserIncludes: 'hello' }, text: 'hi there' }] })
    const other = await client(app)
    const agent = await app.agents.create({ sessionId: 's1', options: OPTIONS })
    const done = turnEnded(app, agent, 1)
    const given = other.give('s1', 'hello')
    expect(agent.status).toBe('running')
    await done
    await agent.idle()
    const s = agent.session
    expect(shape(s.events)).toEqual([
      'user/message', 'turn/start', 'step/start', 'request/header', 'request/context', 'chunks', 'assistant/message', 'step/end', 'turn/end',
    ])
    expect(s.events[0]).toBe(given)
    expect(ofType(s, 'turn/end')[0]!.data.reason).toEqual({ kind: 'completed' })
    expect(s.deriveMessages().map(m => m.content[0])).toEqual([{ type: 'text', text: 'hello' }, { type: 'text', text: 'hi there' }])
  })

  it('L-131 one given while a turn runs is refused INPUT_QUEUED, logged as input/queued off the surface, and becomes the next turns\' user/messages in order', async () => {
    const release = deferred()
    const { app } = await boot({
      script: [
        { match: { lastUserIncludes: 'work' }, toolCalls: [{ id: 'c1', name: 'slow', arguments: {} }] },
        { match: { afterTool: 'slow' }, text: 'worked' },
        { match: { lastUserIncludes: 'first' }, text: 'answer 1' },
        { match: { lastUserIncludes: 'second' }, text: 'answer 2' },
      ],
      tools: [tool('slow', { execute: async () => {
        await release.promise
        return 'slow ok'
      } })],
    })
    const other = await client(app)
    const agent = await app.agents.create({ sessionId: 's1', options: OPTIONS })
    const waiting = new Promise<void>(resolve => app.on('agent/status', (_a: AgentHandle, status: string) => status === 'waiting-for-tool' && resolve()))
    const work = agent.send('work')
    await waiting
    const s = agent.session
    const before = s.seq
    expect(() => other.give('s1', 'first')).toThrow(expect.objectContaining({
      code: 'INPUT_QUEUED',
      message: 'agent "s1" is running turn 1: the message was not appended; it is logged as input/queued and becomes the user/message of a later turn',
    }))
    expect(() => other.give('s1', 'second')).toThrow(expect.objectContaining({ code: 'INPUT_QUEUED' }))
    expect(s.seq).toBe(before)
    await Promise.resolve()
    const queued = ofType(s, 'input/queued')
    expect(queued.map(e => [e.data, e.ignorable])).toEqual([
      [{ source: { kind: 'user' }, content: [{ type: 'text', text: 'first' }] }, true],
      [{ source: { kind: 'user' }, content: [{ type: 'text', text: 'second' }] }, true],
    ])
    expect(s.surface.nodes.some(seq => s.events[seq]!.type === 'input/queued')).toBe(false)
    const done = turnEnded(app, agent, 3)
    release.resolve()
    expect((await work).reason).toEqual({ kind: 'completed' })
    await done
    const turnOne = ofType(s, 'turn/end')[0]!.seq
    expect(queued.every(e => e.seq < turnOne)).toBe(true)
    const users = ofType(s, 'user/message')
    expect(users.map(u => [u.data.content[0], u.sourceEventSeqs])).toEqual([
      [{ type: 'text', text: 'work' }, undefined],
      [{ type: 'text', text: 'first' }, [queued[0]!.seq]],
      [{ type: 'text', text: 'second' }, [queued[1]!.seq]],
    ])
    // Each became the user message of its own turn, after the running turn had closed.
    expect(users.slice(1).map(u => s.events[u.seq - 1]!.type)).toEqual(['turn/start', 'turn/start'])
    expect(ofType(s, 'assistant/message').map(m => m.data.message.content[0])).toEqual([
      expect.objectContaining({ type: 'tool-call' }), { type: 'text', text: 'worked' }, { type: 'text', text: 'answer 1' }, { type: 'text', text: 'answer 2' },
    ])
  })

  it('L-132 runtime-context messages, compaction checkpoints and other source kinds never start a turn; cancel keeps logged input', async () => {
    const { app } = await boot({ script: [{ text: 'ok', repeat: true }] })
    const agent = await app.agents.create({ sessionId: 's1', options: OPTIONS })
    const s = agent.session
    s.append('user/message', userMessage('ctx', 'context', { kind: 'runtime-context', sections: ['cwd'] } as never), { surfaceOp: 'append' })
    s.append('user/message', userMessage('note', 'a note', { kind: 'plugin', plugin: 'notes' }), { surfaceOp: 'append' })
    s.append('user/message', userMessage('sum', 'summary', { kind: 'plugin', plugin: 'compaction' }), {
      surfaceOp: { op: 'replace', start: 0, end: 1 }, sourceEventSeqs: [0, 1],
    })
    await Promise.resolve()
    expect(agent.status).toBe('idle')
    expect(ofType(s, 'turn/start')).toHaveLength(0)

    const first = agent.send('one')
    s.append('input/queued', { source: { kind: 'user' }, content: [{ type: 'text', text: 'kept' }] }, { ignorable: true })
    agent.cancel()
    expect(await first.then(() => 'ran', (error: { code: string }) => error.code)).toBe('DISCARDED')
    await agent.idle()
    expect(ofType(s, 'user/message').at(-1)!.data.content).toEqual([{ type: 'text', text: 'kept' }])
  })

  it('L-133 an input/queued appended directly starts a turn when idle; a malformed one → INVALID_INPUT, log unchanged', async () => {
    const { app } = await boot({ script: [{ text: 'ok', repeat: true }] })
    const agent = await app.agents.create({ sessionId: 's1', options: OPTIONS })
    const s = agent.session
    expect(() => s.append('input/queued', { source: { kind: 'user' }, content: [] } as never, { ignorable: true }))
      .toThrow(expect.objectContaining({ code: 'INVALID_INPUT', message: 'invalid input/queued at seq 0: data.content must be a non-empty array' }))
    expect(() => s.append('input/queued', { source: { kind: 'tool' }, content: [{ type: 'text', text: 'x' }] } as never))
      .toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }))
    expect(() => s.append('input/queued', { text: 'x' } as never)).toThrow(expect.objectContaining({
      code: 'INVALID_INPUT', message: 'invalid input/queued at seq 0: data.text is not allowed',
    }))
    expect(s.seq).toBe(0)
    const done = turnEnded(app, agent, 1)
    const queued = s.append('input/queued', { source: { kind: 'user' }, content: [{ type: 'text', text: 'direct' }] })
    await done
    expect(shape(s.events).slice(0, 3)).toEqual(['input/queued', 'turn/start', 'user/message'])
    expect(ofType(s, 'user/message')[0]!.sourceEventSeqs).toEqual([queued.seq])
  })

  it('L-133 input still queued when the process stops is not lost: the resumed agent runs it', async () => {
    const first = await boot({ memory: 'input-resume', script: [{ text: 'ok', repeat: true }] })
    const old = await first.app.agents.create({ sessionId: 's1', options: OPTIONS })
    await old.send('one')
    // Disposal starts at once, so this input finds no turn of this lifecycle.
    const disposed = old.dispose()
    old.session.append('input/queued', { source: { kind: 'user' }, content: [{ type: 'text', text: 'later' }] }, { ignorable: true })
    await disposed
    expect(ofType(old.session, 'turn/start')).toHaveLength(1)

    const { app } = await boot({ memory: 'input-resume', script: [{ match: { lastUserIncludes: 'later' }, text: 'picked up' }] })
    const agent = await app.agents.resume({ resumeSessionId: 's1' })
    await agent.idle()
    const users = ofType(agent.session, 'user/message')
    expect(users.at(-1)!.data.content).toEqual([{ type: 'text', text: 'later' }])
    expect(ofType(agent.session, 'assistant/message').at(-1)!.data.message.content).toEqual([{ type: 'text', text: 'picked up' }])
  })
})
