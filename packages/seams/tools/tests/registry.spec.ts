import { describe, expect, it } from 'vitest'
import type { ToolDefinition } from '../src/index.ts'
import { thrown } from '@logbook/test-kit'
import { boot, echo } from './helpers.ts'

describe('tool registry', () => {
  it('L-090 a duplicate name is TOOL_NAME_TAKEN and a bad name INVALID_TOOL; nothing changes', async () => {
    const app = await boot()
    const first = echo('read')
    app.tools.register(first)
    expect(thrown(() => app.tools.register(echo('read')))).toMatchObject({
      name: 'ToolRegistryError', code: 'TOOL_NAME_TAKEN', message: 'tool "read" is already registered',
    })
    expect(thrown(() => app.tools.register(echo('a b')))).toMatchObject({
      name: 'ToolRegistryError', code: 'INVALID_TOOL', message: 'invalid tool "a b": name must match ^[A-Za-z0-9_-]{1,64}$',
    })
    expect(app.tools.get('read')).toBe(first)
    expect(app.tools.list().map(def => def.name)).toEqual(['read'])
  })

  it('rejects malformed definitions with INVALID_TOOL naming the reason', async () => {
    const app = await boot()
    const cases: [Partial<ToolDefinition>, string][] = [
      [{ name: 'x'.repeat(65) }, 'name must match ^[A-Za-z0-9_-]{1,64}$'],
      [{ description: 1 as unknown as string }, 'description must be a string'],
      [{ parameters: [] as unknown as ToolDefinition['parameters'] }, 'parameters must be a lossless JSON object'],
      [{ parameters: { type: 'object', required: 'a' } }, 'parameters.required must be an array of strings'],
      [{ parameters: { type: 'obj' } }, 'parameters.type must be one of "object", "array", "string", "number", "integer", "boolean", "null" or a non-empty array of them'],
      [{ parameters: { properties: { a: { type: 5 } } } }, 'parameters.properties.a.type must be one of "object", "array", "string", "number", "integer", "boolean", "null" or a non-empty array of them'],
      [{ execute: undefined as unknown as ToolDefinition['execute'] }, 'execute must be a function'],
      [{ concurrency: 'sometimes' as 'exclusive' }, 'concurrency must be "exclusive" or "parallel-safe"'],
      [{ timeoutMs: 0 }, 'timeoutMs must be a positive safe integer'],
    ]
    for (const [patch, reason] of cases) {
      const def = echo('t', patch)
      expect(thrown(() => app.tools.register(def))).toMatchObject({ code: 'INVALID_TOOL', message: `invalid tool ${JSON.stringify(def.name)}: ${reason}` })
    }
    expect(app.tools.list()).toEqual([])
  })

  it('schemas lists every tool in registration order, or the named ones in the given order', async () => {
    const app = await boot()
    app.tools.register(echo('a'))
    app.tools.register(echo('b', { description: 'bee', parameters: { type: 'object' } }))
    expect(app.tools.schemas().map(s => s.name)).toEqual(['a', 'b'])
    expect(app.tools.schemas(['b', 'missing', 'a'])).toEqual([
      { name: 'b', description: 'bee', parameters: { type: 'object' } },
      { name: 'a', description: 'answers with the text argument', parameters: { type: 'object', properties: { text: { type: 'string' } } } },
    ])
  })

  it('a tool is owned by the registering plugin: its disposer or the plugin unload removes it', async () => {
    const app = await boot()
    const dispose = app.tools.register(echo('a'))
    dispose()
    expect(app.tools.get('a')).toBeUndefined()
    const fiber = await app.plugin({ name: 'owner', inject: ['tools'], apply: ctx => void ctx.tools.register(echo('b')) })
    expect(app.tools.get('b')).toBeDefined()
    await fiber.dispose()
    expect(app.tools.get('b')).toBeUndefined()
    app.tools.register(echo('b'))
    expect(app.tools.get('b')).toBeDefined()
  })
})
