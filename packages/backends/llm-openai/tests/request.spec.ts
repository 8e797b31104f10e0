import type { CallId, Message, MessageId } from '@logbook/session'
import { afterEach, describe, expect, it } from 'vitest'
import type { ConfigInput } from '../src/index.ts'
import { isDeepSeek, roundTripsReasoning } from '../src/config.ts'
import { boot, req } from './helpers.ts'
import { drain } from '@logbook/test-kit'
import { data, delta, sseHead, startServer } from './server.ts'

let close: (() => Promise<void>) | undefined
afterEach(async () => {
  await close?.()
  close = undefined
})

async function capture(config: Omit<ConfigInput, 'baseUrl'>, request = req()) {
  const server = await startServer(res => {
    sseHead(res)
    res.end(data(delta({ content: 'ok' }, 'stop')) + 'data: [DONE]\n\n')
  })
  close = server.close
  const app = await boot({ ...config, baseUrl: `${server.baseUrl}/` })
  const chunks = await drain(app.llm.stream(request))
  expect(chunks[chunks.length - 1]).toEqual({ type: 'finish', reason: 'stop', rawFinishReason: 'stop' })
  return server.requests[0]!
}

const id = (value: string) => value as MessageId
const call = 'call_1' as CallId
const messages: Message[] = [
  { id: id('u1'), role: 'user', source: { kind: 'user' }, content: [{ type: 'text', text: 'Look at' }, { type: 'image', image: { uri: 'file:///a.png', mediaType: 'image/png' } }, { type: 'text', text: 'this' }] },
  {
    id: id('a1'), role: 'assistant', source: { kind: 'model', provider: 'openai', model: 'gpt-test' },
    content: [{ type: 'reasoning', text: 'secret thoughts' }, { type: 'text', text: 'Reading.' }, { type: 'tool-call', id: call, name: 'read', arguments: '{"p":1}' }],
  },
  { id: id('r1'), role: 'user', source: { kind: 'tool', callId: call }, content: [{ type: 'tool-result', toolCallId: call, content: [{ type: 'text', text: 'file body' }] }] },
  { id: id('a2'), role: 'assistant', source: { kind: 'model', provider: 'openai', model: 'gpt-test' }, content: [{ type: 'tool-call', id: 'call_2' as CallId, name: 'ls', arguments: '{}' }] },
  { id: id('s1'), role: 'system', source: { kind: 'system' }, content: [{ type: 'text', text: 'late' }, { type: 'text', text: 'note' }] },
]

describe('@logbook/llm-openai request', () => {
  it('L-088 path, stream, include_usage, max_tokens, tools and messages mapping; Authorization with a key', async () => {
    const tools = [{ name: 'read', description: 'Read a file', parameters: { type: 'object', properties: { p: { type: 'number' } } } }]
    const received = await capture({ apiKey: 'sk-test', headers: { 'X-Extra': 'yes' } }, req({
      config: { provider: 'openai', model: 'gpt-test', maxTokens: 256 },
      system: 'Be brief.',
      messages,
      tools,
    }))
    expect(received.method).toBe('POST')
    expect(received.path).toBe('/v1/chat/completions')
    expect(received.headers.authorization).toBe('Bearer sk-test')
    expect(received.headers['content-type']).toBe('application/json')
    expect(received.headers['x-extra']).toBe('yes')
    expect(received.body).toEqual({
      model: 'gpt-test',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Look at\n[image omitted]\nthis' },
        { role: 'assistant', content: 'Reading.', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read', arguments: '{"p":1}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: 'file body' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_2', type: 'function', function: { name: 'ls', arguments: '{}' } }] },
        { role: 'system', content: 'late\nnote' },
      ],
      stream: true,
      stream_options: { include_usage: true },
      tools: [{ type: 'function', function: tools[0] }],
      max_tokens: 256,
    })
  })

  it('L-088 no key → no Authorization header; the key may come from the apiKeyEnv variable', async () => {
    const variable = 'LOGBOOK_OPENAI_TEST_KEY'
    delete process.env[variable]
    const without = await capture({ apiKeyEnv: variable })
    expect(without.headers.authorization).toBeUndefined()
    expect(without.body).toEqual({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: true } })
    await close?.()
    process.env[variable] = 'sk-env'
    try {
      const withEnv = await capture({ apiKeyEnv: variable })
      expect(withEnv.headers.authorization).toBe('Bearer sk-env')
    } finally {
      delete process.env[variable]
    }
  })

  it('maxTokensField max_completion_tokens carries maxTokens under that name', async () => {
    const received = await capture({ maxTokensField: 'max_completion_tokens' }, req({ config: { provider: 'openai', model: 'o', maxTokens: 99 } }))
    expect(received.body).toMatchObject({ max_completion_tokens: 99 })
    expect(received.body).not.toHaveProperty('max_tokens')
  })

  it('L-147 DeepSeek gets reasoning_content on every earlier tool-calling assistant message, empty when it had none', async () => {
    const body = async (config: Omit<ConfigInput, 'baseUrl'>, provider = config.provider ?? 'openai') => {
      const received = await capture(config, req({ config: { provider, model: 'deepseek-chat' }, messages }))
      await close?.()
      close = undefined
      return (received.body as { messages: Record<string, unknown>[] }).messages.filter(m => m.role === 'assistant')
    }
    const roundTrip = [
      { role: 'assistant', content: 'Reading.', reasoning_content: 'secret thoughts', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read', arguments: '{"p":1}' } }] },
      { role: 'assistant', content: null, reasoning_content: '', tool_calls: [{ id: 'call_2', type: 'function', function: { name: 'ls', arguments: '{}' } }] },
    ]
    expect(await body({ provider: 'deepseek' })).toEqual(roundTrip)
    expect(await body({ provider: 'openai', reasoningRoundTrip: true })).toEqual(roundTrip)
    const plain = await body({ provider: 'deepseek', reasoningRoundTrip: false })
    expect(plain.every(m => !('reasoning_content' in m))).toBe(true)
    expect((await body({})).every(m => !('reasoning_content' in m))).toBe(true)
    const answer: Message = { id: id('a3'), role: 'assistant', source: { kind: 'model', provider: 'deepseek', model: 'm' }, content: [{ type: 'reasoning', text: 'r' }, { type: 'text', text: 'done' }] }
    const received = await capture({ provider: 'deepseek' }, req({ config: { provider: 'deepseek', model: 'm' }, messages: [answer] }))
    expect((received.body as { messages: unknown[] }).messages).toEqual([{ role: 'assistant', content: 'done' }])
  })

  it('L-147 DeepSeek is recognised by a provider name containing "deepseek" or a deepseek.com host', () => {
    const cases: [string, string, boolean][] = [
      ['deepseek', 'http://127.0.0.1:9/v1', true], ['DeepSeek-Reasoner', 'http://127.0.0.1:9/v1', true],
      ['openai', 'https://api.deepseek.com/v1', true], ['openai', 'https://deepseek.com', true],
      ['openai', 'https://api.openai.com/v1', false], ['openai', 'https://notdeepseek.com/v1', false],
    ]
    for (const [provider, baseUrl, expected] of cases) expect([provider, baseUrl, isDeepSeek({ provider, baseUrl })]).toEqual([provider, baseUrl, expected])
    expect(roundTripsReasoning({ provider: 'deepseek', baseUrl: 'http://x', reasoningRoundTrip: false })).toBe(false)
    expect(roundTripsReasoning({ provider: 'openai', baseUrl: 'http://x', reasoningRoundTrip: true })).toBe(true)
  })

  it('reports configured model facts through ctx.llm.modelInfo', async () => {
    const app = await boot({ baseUrl: 'http://127.0.0.1:9/v1', models: [{ id: 'local', contextWindow: 32768, maxTokens: 4096 }, { id: 'bare' }] })
    expect(app.llm.modelInfo('openai', 'local')).toEqual({ contextWindow: 32768, maxTokens: 4096 })
    expect(app.llm.modelInfo('openai', 'bare')).toEqual({})
    expect(app.llm.modelInfo('openai', 'other')).toBeUndefined()
  })

  it('a baseUrl that is not http(s) fails the plugin at load', async () => {
    await expect(boot({ baseUrl: 'ftp://example' })).rejects.toThrow('baseUrl')
  })
})
