import { describe, expect, it } from 'vitest'
import { boot, deferred, OPTIONS, ofType, untilAborted } from './helpers.ts'

describe('loop plugin teardown', () => {
  it('unloading the loop with persistence disposes every agent: turns closed, flushed, released; it does not hang', async () => {
    const started = deferred()
    const { app, agents } = await boot({
      memory: 'loop-teardown',
      script: [{ toolCalls: [{ id: 'c1', name: 'wait', arguments: {} }] }],
      tools: [untilAborted('wait', started, 'stopped')],
    })
    const released: string[] = []
    app.on('persistence/released', event => void released.push(event.sessionId))
    const busy = await app.agents.create({ sessionId: 'busy', options: OPTIONS })
    const quiet = await app.agents.create({ sessionId: 'quiet', options: OPTIONS })
    const sent = busy.send('go')
    await started.promise
    await agents.dispose()
    expect([busy.status, quiet.status]).toEqual(['disposed', 'disposed'])
    expect((await sent).reason).toEqual({ kind: 'aborted', reason: { kind: 'disposed' } })
    expect(released.sort()).toEqual(['busy', 'quiet'])
    expect(app.sessions.list()).toEqual([])
    const stored = await app.sessionPersistence.readFrom('busy', 0)
    expect(JSON.stringify(stored)).toBe(JSON.stringify(busy.session.events))
    expect(stored.at(-1)).toMatchObject({ type: 'turn/end', data: { reason: { kind: 'aborted', reason: { kind: 'disposed' } } } })
  })
})

describe('agent/status', () => {
  it('announces every change; a throwing or rejecting listener is contained and logged', async () => {
    const { app, logs } = await boot({ script: [{ text: 'a', repeat: true }] })
    const seen: string[] = []
    app.on('agent/status', () => {
      throw new Error('listener bug')
    })
    app.on('agent/status', async () => {
      throw new Error('async listener bug')
    })
    app.on('agent/status', (agent, status) => void seen.push(`${agent.id}:${status}`))
    const agent = await app.agents.create({ sessionId: 's1', options: OPTIONS })
    expect((await agent.send('hi')).reason).toEqual({ kind: 'completed' })
    await agent.dispose()
    expect(seen).toEqual(['s1:running', 's1:idle', 's1:disposed'])
    expect(ofType(agent.session, 'turn/end')).toHaveLength(1)
    expect(logs.filter(line => line.includes('agent/status listener threw: listener bug'))).toHaveLength(3)
    expect(logs.filter(line => line.includes('agent/status listener rejected: async listener bug'))).toHaveLength(3)
  })
})
