import type { StreamChunk } from '@logbook/session'
import { describe, expect, it } from 'vitest'
import { boot, ofType, tool } from './helpers.ts'

/** A model double that answers every request with `chunks` (deterministic; the real wire is llm-openai's). */
function fixedModel(chunks: readonly StreamChunk[]) {
  return { provider: 'fixed', async *stream() { yield* chunks } }
}

const reply: StreamChunk[] = [
  { type: 'block-start', index: 0, blockType: 'text' },
  { type: 'text-delta', index: 0, text: 'Done.' },
  { type: 'block-end', index: 0, block: { type: 'text', text: 'Done.' } },
]

describe('what a step records about its outcome', () => {
  it('L-148 a completed step without a usage chunk marks usageMissing; the raw finish reason is kept', async () => {
    const { app } = await boot({ script: [] })
    app.llm.register(fixedModel([...reply, { type: 'finish', reason: 'stop', rawFinishReason: 'stop' }]))
    const agent = await app.agents.create({ sessionId: 's1', options: { provider: 'fixed', model: 'm' } })
    expect((await agent.send('go')).reason).toEqual({ kind: 'completed' })
    const [message] = ofType(agent.session, 'assistant/message')
    expect(message!.data).toEqual({
      turn: 1, step: 1, message: expect.objectContaining({ content: [{ type: 'text', text: 'Done.' }] }),
      usageMissing: true, rawFinishReason: 'stop',
    })
  })

  it('L-148 with usage there is no usageMissing; an adapter without a raw reason records none', async () => {
    const { app } = await boot({ script: [] })
    const usage = { inputTokens: 3, outputTokens: 1 }
    app.llm.register(fixedModel([...reply, { type: 'usage', usage }, { type: 'finish', reason: 'stop' }]))
    const agent = await app.agents.create({ sessionId: 's1', options: { provider: 'fixed', model: 'm' } })
    await agent.send('go')
    const [message] = ofType(agent.session, 'assistant/message')
    expect(message!.data).toEqual({ turn: 1, step: 1, message: expect.anything(), usage })
  })

  it('L-148 an unknown provider finish reason (an error finish) writes no assistant message and ends the turn error', async () => {
    const { app } = await boot({ script: [] })
    const error = { code: 'PROVIDER', message: 'finish_reason "insufficient_system_resource" is unknown' }
    app.llm.register(fixedModel([...reply, { type: 'finish', reason: 'error', error, rawFinishReason: 'insufficient_system_resource' }]))
    const agent = await app.agents.create({ sessionId: 's1', options: { provider: 'fixed', model: 'm' } })
    expect((await agent.send('go')).reason).toEqual({ kind: 'error', error })
    expect(ofType(agent.session, 'assistant/message')).toEqual([])
    const finish = ofType(agent.session, 'assistant/chunk').at(-1)!.data.chunk
    expect(finish).toMatchObject({ type: 'finish', rawFinishReason: 'insufficient_system_resource' })
  })

  it('L-149 a configured agent without tools is offered every registered tool and can call one', async () => {
    const { app } = await boot({
      script: [{ toolCalls: [{ name: 'read', arguments: {} }] }, { text: 'read it' }],
      tools: [tool('read'), tool('write')],
      config: { agents: [{ id: 'main', provider: 'scripted', model: 'm1', prompts: ['go'] }] },
    })
    const [agent] = await app.agents.startConfigured()
    await agent!.idle()
    expect(agent!.options).not.toHaveProperty('tools')
    const [header] = ofType(agent!.session, 'request/header')
    expect(header!.data.header.tools?.map(t => t.name)).toEqual(['read', 'write'])
    const [result] = ofType(agent!.session, 'tool/result')
    expect(result!.data.error).toBeUndefined()
    expect(ofType(agent!.session, 'turn/end').map(e => e.data.reason)).toEqual([{ kind: 'completed' }])
  })
})
