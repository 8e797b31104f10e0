import { describe, expect, it } from 'vitest'
import type { AgentHandle, AgentStatus } from '../src/index.ts'
import { boot, deferred, OPTIONS, tool } from './helpers.ts'

function record(app: Awaited<ReturnType<typeof boot>>['app']): string[] {
  const seen: string[] = []
  app.on('agent/created', (agent: AgentHandle) => void seen.push(`created ${agent.id} ${agent.status}`))
  app.on('agent/status', (agent: AgentHandle, status: AgentStatus, turn: number | null) => {
    seen.push(`status ${agent.id} ${status} ${String(turn)}`)
  })
  app.on('agent/disposed', (agent: AgentHandle) => void seen.push(`disposed ${agent.id} ${agent.status}`))
  return seen
}

describe('agent control events', () => {
  it('L-122 agent/created, agent/status with the turn (running, waiting-for-tool, running, idle), agent/disposed after the disposed status', async () => {
    const release = deferred()
    const { app } = await boot({
      script: [
        { toolCalls: [{ id: 'c1', name: 'slow', arguments: {} }] },
        { match: { afterTool: 'slow' }, text: 'done' },
      ],
      tools: [tool('slow', { execute: async () => {
        await release.promise
        return 'ok'
      } })],
    })
    const seen = record(app)
    const agent = await app.agents.create({ sessionId: 's1', options: OPTIONS })
    const waiting = new Promise<void>(resolve => {
      app.on('agent/status', (_a: AgentHandle, status: AgentStatus) => {
        if (status === 'waiting-for-tool') resolve()
      })
    })
    const turn = agent.send('go')
    expect([agent.status, agent.turn]).toEqual(['running', 1])
    await waiting
    expect([agent.status, agent.turn]).toEqual(['waiting-for-tool', 1])
    release.resolve()
    await turn
    expect([agent.status, agent.turn]).toEqual(['idle', null])
    await agent.dispose()
    expect(seen).toEqual([
      'created s1 idle',
      'status s1 running 1',
      'status s1 waiting-for-tool 1',
      'status s1 running 1',
      'status s1 idle null',
      'status s1 disposed null',
      'disposed s1 disposed',
    ])
  })

  it('L-122 turn numbers follow the log: a resumed agent announces the turn after the stored ones; a throwing listener is contained', async () => {
    const first = await boot({ memory: 'control-resume', script: [{ text: 'a', repeat: true }] })
    const old = await first.app.agents.create({ sessionId: 's1', options: OPTIONS })
    await old.send('one')
    await old.send('two')
    await old.dispose()

    const { app, logs } = await boot({ memory: 'control-resume', script: [{ text: 'b', repeat: true }] })
    app.on('agent/status', () => {
      throw new Error('listener broke')
    })
    const seen = record(app)
    const agent = await app.agents.resume({ resumeSessionId: 's1' })
    await agent.send('three')
    expect(seen.slice(0, 3)).toEqual(['created s1 idle', 'status s1 running 3', 'status s1 idle null'])
    expect(logs.some(line => line.includes('agent/status listener threw: listener broke'))).toBe(true)
  })
})
