import type { Message, MessageId, CallId } from '@logbook/session'
import { describe, expect, it } from 'vitest'
import { defaultTokenEstimator as est, tokenEstimatorOf, type TokenEstimator } from '../src/index.ts'
import { boot, userText } from './helpers.ts'

describe('defaultTokenEstimator', () => {
  it('L-036 "abcd" → 1, "abcde" → 2, "éééé" → 2, a user message with text "abcd" → 5', () => {
    expect(est.text('abcd')).toBe(1)
    expect(est.text('abcde')).toBe(2)
    expect(est.text('éééé')).toBe(2)
    expect(est.text('')).toBe(0)
    expect(est.message(userText('u', 'abcd'))).toBe(5)
  })

  it('prices tool calls, tool results, images and tool schemas as §3.1 says', () => {
    const assistant: Message = {
      id: 'a' as MessageId,
      role: 'assistant',
      source: { kind: 'model', provider: 'p', model: 'm' },
      content: [
        { type: 'reasoning', text: 'abcdefgh' },
        { type: 'refusal', text: 'abcde' },
        { type: 'tool-call', id: 'c1' as CallId, name: 'read', arguments: '{"p":1}' },
      ],
    }
    // 4 + reasoning 2 + refusal (priced as text) 2 + (4 + name 1 + arguments ceil(7/4)=2)
    expect(est.message(assistant)).toBe(15)
    const result: Message = {
      id: 'r' as MessageId,
      role: 'user',
      source: { kind: 'tool', callId: 'c1' as CallId },
      content: [{
        type: 'tool-result',
        toolCallId: 'c1' as CallId,
        content: [{ type: 'text', text: 'abcd' }, { type: 'image', image: { uri: 'file:///x.png', mediaType: 'image/png' } }],
      }],
    }
    // 4 + (4 + id 1 + text 1 + image 512)
    expect(est.message(result)).toBe(522)
    const schemas = [{ name: 'read', description: 'd', parameters: { type: 'object' } }]
    expect(est.tools(schemas)).toBe(Math.ceil(JSON.stringify(schemas).length / 4))
  })

  it('L-037 a plugin providing tokenEstimator is the estimator in force while it is loaded', async () => {
    const { app } = await boot()
    const custom: TokenEstimator = { text: () => 7, message: () => 70, tools: () => 700 }
    expect(tokenEstimatorOf(app)).toBe(est)
    const fiber = await app.plugin({ name: 'estimator', apply: ctx => void ctx.provide('tokenEstimator', custom) })
    expect(tokenEstimatorOf(app)).toBe(custom)
    expect(tokenEstimatorOf(app).message(userText('u', 'abcd'))).toBe(70)
    await fiber.dispose()
    expect(tokenEstimatorOf(app)).toBe(est)
  })
})
