import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { Context } from '@deepseek-ai/cordis'
import Llm from '@logbook/llm'
import { describe, expect, it } from 'vitest'
import * as Scripted from '../src/index.ts'
import { ScriptError, parseScript } from '../src/index.ts'
import { req, textOf, user } from './helpers.ts'
import { drain } from '@logbook/test-kit'

function invalid(script: unknown): string {
  try {
    parseScript(script)
  } catch (error) {
    expect(error).toBeInstanceOf(ScriptError)
    expect((error as ScriptError).code).toBe('INVALID_SCRIPT')
    return (error as Error).message
  }
  throw new Error('script was accepted')
}

describe('script validation', () => {
  it('names the index of the first invalid entry', () => {
    expect(invalid([{ text: 'ok' }, { text: 1 }])).toBe('invalid script: entry 1: "text" must be a string')
    expect(invalid([{ txt: 'typo' }])).toBe('invalid script: entry 0: unknown key "txt"')
    expect(invalid([{}, {}, { times: 2, repeat: true }])).toBe('invalid script: entry 2: "times" and "repeat" are exclusive')
    expect(invalid([{ times: 0 }])).toBe('invalid script: entry 0: "times" must be at least 1')
    expect(invalid([{ match: { purpose: 'chat' } }])).toBe('invalid script: entry 0: "match.purpose" must be "turn" or "compaction"')
    expect(invalid([{ toolCalls: [{ name: 'x' }] }])).toBe('invalid script: entry 0: "toolCalls[0].arguments" must be a JSON object or a string')
    expect(invalid([{ error: { code: 'OOPS', message: 'x' } }])).toBe('invalid script: entry 0: "error.code" "OOPS" is not a model failure code')
    expect(invalid([{ usage: { inputTokens: 1 } }])).toBe('invalid script: entry 0: "usage" needs "inputTokens" and "outputTokens"')
    expect(invalid([{ hang: true, error: { code: 'PROVIDER', message: 'x' } }])).toBe('invalid script: entry 0: "hang" and "error" are exclusive')
    expect(invalid([{ finish: 'error' }])).toBe('invalid script: entry 0: "finish" must be "stop", "tool-calls" or "max-tokens"')
    expect(invalid({ entries: [] })).toBe('invalid script: expected an array of entries or { "responses": [...] }')
    expect(invalid(['text'])).toBe('invalid script: entry 0: must be an object')
  })

  it('L-151 tool-call arguments are validated as event data is: one line naming the path, nothing changed or thrown raw', () => {
    const cycle: Record<string, unknown> = {}
    cycle.loop = cycle
    const cases: [unknown, string][] = [
      [new Map([['a', 1]]), '"toolCalls[0].arguments" is not lossless JSON (a Map)'],
      [new Date(0), '"toolCalls[0].arguments" is not lossless JSON (a Date)'],
      [{ n: NaN }, '"toolCalls[0].arguments.n" is not lossless JSON (NaN)'],
      [{ a: [1, undefined] }, '"toolCalls[0].arguments.a[1]" is not lossless JSON (undefined)'],
      [{ when: new Date(0) }, '"toolCalls[0].arguments.when" is not lossless JSON (a Date)'],
      [{ toJSON: () => ({}) }, '"toolCalls[0].arguments.toJSON" is not lossless JSON (a function)'],
      [{ z: -0 }, '"toolCalls[0].arguments.z" is not lossless JSON (-0)'],
      [{ big: 10n }, '"toolCalls[0].arguments.big" is not lossless JSON (a BigInt)'],
      [cycle, '"toolCalls[0].arguments.loop" is not lossless JSON (a cycle)'],
    ]
    for (const [args, message] of cases) {
      expect(invalid([{ toolCalls: [{ name: 'x', arguments: args }] }])).toBe(`invalid script: entry 0: ${message}`)
    }
    const [entry] = parseScript([{ toolCalls: [{ name: 'x', arguments: { p: 'a', n: [1, 2.5, null] } }, { name: 'y', arguments: '{bad' }] }])
    expect(entry!.toolCalls.map(call => call.arguments)).toEqual(['{"p":"a","n":[1,2.5,null]}', '{bad'])
  })

  it('an invalid script fails the plugin at load, naming the entry index; no adapter is registered', async () => {
    const app = new Context()
    await app.plugin(Llm)
    await expect(app.plugin(Scripted, { script: [{ text: 'ok' }, { delayMs: -1 }] }))
      .rejects.toThrow('invalid script: entry 1: "delayMs" must be a non-negative integer')
    expect(app.llm.providers()).toEqual([])
  })

  it('reads a script file relative to ctx.baseUrl, and a missing file fails the load', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'llm-scripted-'))
    writeFileSync(join(dir, 'script.json'), JSON.stringify([{ text: 'from file' }]))
    const app = new Context()
    app.baseUrl = pathToFileURL(dir + '/').href
    await app.plugin(Llm)
    await app.plugin(Scripted, { script: 'script.json', provider: 'file' })
    expect(textOf(await drain(app.llm.stream(req([user('x')], { config: { provider: 'file', model: 'm' } }))))).toBe('from file')
    await expect(app.plugin(Scripted, { script: 'missing.json', provider: 'other' }))
      .rejects.toThrow(`invalid script: cannot read "${join(dir, 'missing.json')}"`)
    writeFileSync(join(dir, 'bad.json'), '[{')
    await expect(app.plugin(Scripted, { script: join(dir, 'bad.json'), provider: 'third' }))
      .rejects.toThrow(`invalid script: "${join(dir, 'bad.json')}" is not JSON`)
  })
})
