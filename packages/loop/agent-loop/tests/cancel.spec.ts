import { describe, expect, it } from 'vitest'
import type { SessionEvent } from '@logbook/session'
import type { AgentStatus } from '../src/index.ts'
import { boot, deferred, OPTIONS, ofType, rejection, shape, tool, untilAborted } from './helpers.ts'

describe('cancelling a stream', () => {
  it('L-100 cancel after "Hel" streamed → interrupted message "Hel" citing every chunk of the attempt, step/end, turn/end {aborted, user}', async () => {
    const { app } = await boot({ script: [{ text: 'Hello world', chunkSize: 3, chunkDelayMs: 20, hang: true }] })
    const agent = await app.agents.create({ sessionId: 's1', options: OPTIONS })
    app.on('session/event', (_s, event: SessionEvent) => {
      if (event.type === 'assistant/chunk' && event.data.chunk.type === 'text-delta') agent.cancel()
    })
    const result = await agent.send('go')
    const s = agent.session
    const chunks = ofType(s, 'assistant/chunk')
    expect(chunks.map(c => c.data.chunk.type)).toEqual(['block-start', 'text-delta', 'finish'])
    const [message] = ofType(s, 'assistant/message')
    expect(message!.data.interrupted).toBe(true)
    expect(message!.data.message.content).toEqual([{ type: 'text', text: 'Hel' }])
    expect(message!.sourceEventSeqs).toEqual(chunks.map(c => c.seq))
    expect(shape(s.events).slice(-4)).toEqual(['chunks', 'assistant/message', 'step/end', 'turn/end'])
    expect(result.reason).toEqual({ kind: 'aborted', reason: { kind: 'user' } })
  })

  it('L-100 cancel before any delta → no message', async () => {
    const { app } = await boot({ script: [{ text: 'Hello', delayMs: 20 }] })
    const agent = await app.agents.create({ sessionId: 's1', options: OPTIONS })
    app.on('session/event', (_s, event: SessionEvent) => {
      if (event.type === 'request/context') agent.cancel()
    })
    const result = await agent.send('go')
    expect(ofType(agent.session, 'assistant/message')).toHaveLength(0)
    expect(shape(agent.session.events).slice(-3)).toEqual(['chunks', 'step/end', 'turn/end'])
    expect(result.reason).toEqual({ kind: 'aborted', reason: { kind: 'user' } })
  })
})

describe('cancellation races', () => {
  it('a cancel after the model\'s final finish, before turn/end, still ends the turn aborted; the message stays complete', async () => {
    const { app } = await boot({ script: [{ text: 'all done' }] })
    const agent = await app.agents.create({ sessionId: 's1', options: OPTIONS })
    app.on('session/event', (_s, event: SessionEvent) => {
      if (event.type === 'assistant/message') agent.cancel('parent')
    })
    const result = await agent.send('go')
    const [message] = ofType(agent.session, 'assistant/message')
    expect(message!.data.interrupted).toBeUndefined()
    expect(message!.data.message.content).toEqual([{ type: 'text', text: 'all done' }])
    expect(shape(agent.session.events).slice(-3)).toEqual(['assistant/message', 'step/end', 'turn/end'])
    expect(result.reason).toEqual({ kind: 'aborted', reason: { kind: 'parent' } })
  })

  it('§5.5 a cancel while agent/pre-step runs → no step opens; turn/end {aborted}', async () => {
    const entered = deferred()
    const release = deferred()
    const { app } = await boot({ script: [{ text: 'never' }] })
    app.on('agent/pre-step', async (payload, next) => {
      entered.resolve()
      await release.promise
      expect(payload.signal.aborted).toBe(true)
      return next()
    })
    const agent = await app.agents.create({ sessionId: 's1', options: OPTIONS })
    const sent = agent.send('go')
    await entered.promise
    agent.cancel()
    release.resolve()
    expect((await sent).reason).toEqual({ kind: 'aborted', reason: { kind: 'user' } })
    expect(shape(agent.session.events)).toEqual(['turn/start', 'user/message', 'turn/end'])
  })
})

describe('the prompt queue', () => {
  it('L-103 send while running → the next turn; cancel() drops the queue (DISCARDED); after dispose() → DISPOSED', async () => {
    const gate = deferred<string>()
    let gated = true
    let started = deferred()
    const { app } = await boot({
      script: [{ toolCalls: [{ name: 'wait', arguments: {} }], match: { lastUserIncludes: 'wait' }, repeat: true }, { text: 'ok', repeat: true }],
      tools: [tool('wait', { execute: (_a, { signal }) => (gated ? new Promise((resolve, reject) => {
        started.resolve()
        void gate.promise.then(resolve)
        signal.addEventListener('abort', () => reject(new Error('aborted')))
      }) : 'open') })],
    })
    const statuses: AgentStatus[] = []
    app.on('agent/status', (_agent, status) => void statuses.push(status))
    const agent = await app.agents.create({ sessionId: 's1', options: OPTIONS })
    const first = agent.send('wait please')
    const second = agent.send('then this')
    expect(agent.status).toBe('running')
    gated = false
    gate.resolve('opened')
    expect((await first).turn).toBe(1)
    expect(await second).toMatchObject({ turn: 2, reason: { kind: 'completed' } })
    await agent.idle()
    expect(agent.status).toBe('idle')

    gated = true
    started = deferred()
    const third = agent.send('wait again')
    const queued = agent.send('never runs')
    await started.promise
    agent.cancel()
    expect(await rejection(queued)).toMatchObject({ name: 'AgentError', code: 'DISCARDED', message: 'prompt discarded: agent "s1" was cancelled (user)' })
    expect((await third).reason).toEqual({ kind: 'aborted', reason: { kind: 'user' } })
    expect(ofType(agent.session, 'turn/start')).toHaveLength(3)

    started = deferred()
    const kept = agent.send('wait once more')
    const survivor = agent.send('survives')
    await started.promise
    agent.cancel('user', { keepQueue: true })
    expect((await kept).reason.kind).toBe('aborted')
    expect(await survivor).toMatchObject({ turn: 5, reason: { kind: 'completed' } })

    await agent.dispose()
    expect(await rejection(agent.send('late'))).toMatchObject({ code: 'DISPOSED', message: 'agent "s1" is disposed' })
    expect(agent.status).toBe('disposed')
    expect(statuses[0]).toBe('running')
    expect(statuses.at(-1)).toBe('disposed')
    expect(statuses.filter(s => s === 'idle').length).toBeGreaterThan(0)
    await agent.idle()
  })

  it('idle() resolves once nothing runs or waits', async () => {
    const { app } = await boot({ script: [{ text: 'a', repeat: true }] })
    const agent = await app.agents.create({ sessionId: 's1', options: OPTIONS })
    await agent.idle()
    void agent.send('one')
    void agent.send('two')
    await agent.idle()
    expect(ofType(agent.session, 'turn/end')).toHaveLength(2)
  })
})

describe('maintenance', () => {
  it('a lease holds the agent in maintenance: send() queues, cancel() aborts the lease, end() runs the queue', async () => {
    const { app } = await boot({ script: [{ text: 'a', repeat: true }] })
    const agent = await app.agents.create({ sessionId: 's1', options: OPTIONS })
    const lease = agent.beginMaintenance()!
    expect(agent.status).toBe('maintenance')
    expect(agent.beginMaintenance()).toBeUndefined()
    const sent = agent.send('after maintenance')
    expect(ofType(agent.session, 'turn/start')).toHaveLength(0)
    agent.cancel('user', { keepQueue: true })
    expect(lease.signal.aborted).toBe(true)
    lease.end()
    expect((await sent).reason).toEqual({ kind: 'completed' })
    expect(agent.status).toBe('idle')
  })

  it('end(seq) makes queued and later prompts reject SESSION_NEEDS_RESUME without a turn/start', async () => {
    const { app } = await boot({ script: [{ text: 'a', repeat: true }] })
    const agent = await app.agents.create({ sessionId: 's1', options: OPTIONS })
    const lease = agent.beginMaintenance()!
    const queued = agent.send('queued')
    lease.end(7)
    const message = 'compaction lock at seq 7 is orphaned; resume the session to clear it'
    expect(await rejection(queued)).toMatchObject({ code: 'SESSION_NEEDS_RESUME', message })
    expect(await rejection(agent.send('later'))).toMatchObject({ code: 'SESSION_NEEDS_RESUME', message })
    expect(ofType(agent.session, 'turn/start')).toHaveLength(0)
  })
})

describe('dispose', () => {
  it('L-108 dispose() mid-turn → turn/end {aborted, disposed}; the session is flushed and detached', async () => {
    const started = deferred()
    const { app } = await boot({
      memory: 'l108',
      script: [{ toolCalls: [{ id: 'c1', name: 'wait', arguments: {} }] }],
      tools: [untilAborted('wait', started, 'stopped')],
    })
    const released: string[] = []
    app.on('persistence/released', event => void released.push(event.sessionId))
    const agent = await app.agents.create({ sessionId: 's1', options: OPTIONS })
    const sent = agent.send('go')
    await started.promise
    await agent.dispose()
    expect((await sent).reason).toEqual({ kind: 'aborted', reason: { kind: 'disposed' } })
    expect(app.sessions.get(agent.id)).toBeUndefined()
    expect(released).toEqual(['s1'])
    const stored = await app.sessionPersistence.readFrom('s1', 0)
    expect(JSON.stringify(stored)).toBe(JSON.stringify(agent.session.events))
    expect(stored.at(-1)).toMatchObject({ type: 'turn/end', data: { reason: { kind: 'aborted', reason: { kind: 'disposed' } } } })
    await agent.dispose()
  })

  it('unloading the owning plugin disposes its agents in order; the loop plugin\'s teardown does too', async () => {
    const { app } = await boot({ memory: 'owner', script: [{ text: 'a', repeat: true }] })
    let agent: Awaited<ReturnType<typeof app.agents.create>> | undefined
    const owner = await app.plugin({
      name: 'owner', inject: ['agents'],
      apply: async ctx => {
        agent = await ctx.agents.create({ sessionId: 'owned', options: OPTIONS })
      },
    })
    await agent!.send('hi')
    await owner.dispose()
    expect(agent!.status).toBe('disposed')
    expect(app.sessions.get(agent!.id)).toBeUndefined()
    const other = await app.agents.create({ sessionId: 'other', options: OPTIONS })
    expect(app.agents.list()).toEqual([other])
  })
})

describe('starting a turn', () => {
  it('send() appends nothing synchronously, so a session/event listener may call it; a prompt cancelled before its turn/start is DISCARDED', async () => {
    const { app } = await boot({ script: [{ text: 'a', repeat: true }] })
    const agent = await app.agents.create({ sessionId: 's1', options: OPTIONS })
    const count = agent.session.seq
    const sent = agent.send('one')
    expect(agent.status).toBe('running')
    expect(agent.session.seq).toBe(count)
    agent.cancel()
    expect(await rejection(sent)).toMatchObject({ code: 'DISCARDED', message: 'prompt discarded: agent "s1" was cancelled (user)' })
    expect(agent.session.seq).toBe(count)
    expect(agent.status).toBe('idle')

    let followUp: Promise<unknown> | undefined
    app.on('session/event', (_s, event: SessionEvent) => {
      if (event.type === 'turn/end' && followUp === undefined) followUp = agent.send('from a listener')
    })
    await agent.send('two')
    expect(await followUp).toMatchObject({ turn: 2, reason: { kind: 'completed' } })
  })
})
