import { describe, expect, it } from 'vitest'
import { AgentLoopConfigSchema } from '../src/config.ts'
import { boot, ofType } from './helpers.ts'

describe('config and startConfigured()', () => {
  it('has the documented defaults, also when the plugin is loaded without config', () => {
    const defaults = {
      maxSteps: 25, maxParallelToolCalls: 4, maxRequestRetries: 3, toolCancelGraceMs: 5000,
      runtimeContext: { enabled: false, instructionFiles: ['AGENTS.md'], sections: {} }, watchBufferEvents: 10_000, agents: [],
    }
    expect(AgentLoopConfigSchema({})).toEqual(defaults)
    expect(AgentLoopConfigSchema['~standard'].validate(undefined)).toEqual({ value: defaults })
  })

  it('rejects an entry naming both sessionId and resumeSessionId, or missing its model', () => {
    expect(() => AgentLoopConfigSchema({ agents: [{ id: 'a', sessionId: 'x', resumeSessionId: 'y', provider: 'p', model: 'm' }] }))
      .toThrow(/sessionId and resumeSessionId are exclusive/)
    expect(() => AgentLoopConfigSchema({ agents: [{ id: 'a', provider: 'p' }] } as never)).toThrow()
    expect(() => AgentLoopConfigSchema({ maxSteps: 0 })).toThrow()
  })

  it('creates and resumes the configured agents in order, queues their prompts and resolves to the handles', async () => {
    const seed = await boot({ memory: 'configured', script: [{ text: 'a', repeat: true }] })
    const old = await seed.app.agents.create({ sessionId: 'old', options: { provider: 'scripted', model: 'm1' } })
    await old.send('before')
    await old.dispose()

    const { app } = await boot({
      memory: 'configured',
      script: [{ text: 'answer', repeat: true }],
      config: {
        agents: [
          { id: 'main', provider: 'scripted', model: 'm1', system: 'sys', prompts: ['one', 'two'] },
          { id: 'named', sessionId: 'named-1', provider: 'scripted', model: 'm1' },
          { id: 'back', resumeSessionId: 'old', provider: 'scripted', model: 'm2', prompts: ['again'] },
        ],
      },
    })
    const handles = await app.agents.startConfigured()
    expect(handles.map(h => h.id)).toEqual([expect.stringMatching(/^main-[0-9a-f-]{36}$/), 'named-1', 'old'])
    await Promise.all(handles.map(h => h.idle()))
    expect(ofType(handles[0]!.session, 'turn/end')).toHaveLength(2)
    expect(ofType(handles[0]!.session, 'system/message')).toHaveLength(1)
    expect(handles[1]!.session.seq).toBe(0)
    expect(ofType(handles[2]!.session, 'turn/start').map(t => t.data.turn)).toEqual([1, 2])
    expect(ofType(handles[2]!.session, 'request/context').map(c => c.data.model)).toEqual(['m1', 'm2'])
  })
})
