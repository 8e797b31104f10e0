import type { MessageId } from '@logbook/session'
import { afterEach, describe, expect, it } from 'vitest'
import { boot, req, user } from './helpers.ts'
import { drain } from '@logbook/test-kit'
import { data, delta, sseHead, startServer, writeSlowly } from './server.ts'

let close: (() => Promise<void>) | undefined
afterEach(async () => {
  await close?.()
  close = undefined
})

describe('@logbook/llm-openai refusals', () => {
  it('L-145 refusal deltas stream as a refusal block; the reply is not empty', async () => {
    const server = await startServer(async res => {
      sseHead(res)
      await writeSlowly(res, [
        data(delta({ role: 'assistant', content: null, refusal: '' })),
        data(delta({ refusal: "I'm sorry, " })),
        data(delta({ refusal: 'I cannot help with that.' })),
        data(delta({}, 'stop')),
        'data: [DONE]\n\n',
      ])
      res.end()
    })
    close = server.close
    const app = await boot({ baseUrl: server.baseUrl })
    expect(await drain(app.llm.stream(req()))).toEqual([
      { type: 'block-start', index: 0, blockType: 'refusal' },
      { type: 'refusal-delta', index: 0, text: "I'm sorry, " },
      { type: 'refusal-delta', index: 0, text: 'I cannot help with that.' },
      { type: 'block-end', index: 0, block: { type: 'refusal', text: "I'm sorry, I cannot help with that." } },
      { type: 'finish', reason: 'stop', rawFinishReason: 'stop' },
    ])
  })

  it('L-145 a stored refusal goes back as the assistant content text, in order with its text parts', async () => {
    const server = await startServer(res => {
      sseHead(res)
      res.end(data(delta({ content: 'ok' }, 'stop')) + 'data: [DONE]\n\n')
    })
    close = server.close
    const app = await boot({ baseUrl: server.baseUrl })
    const source = { kind: 'model', provider: 'openai', model: 'gpt-test' } as const
    await drain(app.llm.stream(req({
      messages: [
        user('do the thing'),
        { id: 'a1' as MessageId, role: 'assistant', source, content: [{ type: 'text', text: 'Well.' }, { type: 'refusal', text: 'I cannot do that.' }] },
        { id: 'a2' as MessageId, role: 'assistant', source, content: [{ type: 'refusal', text: 'No.' }] },
        user('why?'),
      ],
    })))
    expect((server.requests[0]!.body as { messages: unknown[] }).messages).toEqual([
      { role: 'user', content: 'do the thing' },
      { role: 'assistant', content: 'Well.\nI cannot do that.' },
      { role: 'assistant', content: 'No.' },
      { role: 'user', content: 'why?' },
    ])
  })
})
