import { afterEach, describe, expect, it, vi } from 'vitest'
import { ToolError, type ToolContext } from '../src/index.ts'
import { boot, call, CodedError, echo } from './helpers.ts'

const schema = {
  type: 'object',
  properties: {
    path: { type: 'string' },
    mode: { enum: ['r', 'w'] },
    lines: { type: 'array', items: { type: 'integer' } },
    opts: { type: 'object', properties: { deep: { type: ['boolean', 'null'] } }, additionalProperties: false },
  },
  required: ['path'],
  additionalProperties: false,
}

afterEach(() => {
  vi.useRealTimers()
})

describe('execute: lookup and arguments', () => {
  it('L-090 unknown tool, "{" arguments and a missing required field fail with their codes; the body never runs', async () => {
    const app = await boot()
    const body = vi.fn(() => 'ran')
    app.tools.register(echo('read', { parameters: schema, execute: body }))
    expect(await app.tools.execute(call('nope'))).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'Error: unknown tool "nope"' }],
      error: { name: 'ToolError', code: 'UNKNOWN_TOOL', message: 'unknown tool "nope"' },
    })
    expect(await app.tools.execute(call('read', '{'))).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'Error: arguments are not valid JSON' }],
      error: { name: 'ToolError', code: 'INVALID_ARGS', message: 'arguments are not valid JSON' },
    })
    const missing = await app.tools.execute(call('read', '{"mode":"r"}'))
    expect(missing.error).toEqual({ name: 'ToolError', code: 'INVALID_ARGS', message: 'invalid arguments: arguments.path is required' })
    expect(missing.content).toEqual([{ type: 'text', text: 'Error: invalid arguments: arguments.path is required' }])
    expect(body).not.toHaveBeenCalled()
  })

  it('checks the schema subset and names the path of the first violation', async () => {
    const app = await boot()
    app.tools.register(echo('read', { parameters: schema, execute: () => 'ok' }))
    const cases: [string, string][] = [
      ['[]', 'arguments are not valid JSON: expected a JSON object'],
      ['{"path":1}', 'invalid arguments: arguments.path must be a string'],
      ['{"path":"a","mode":"x"}', 'invalid arguments: arguments.mode must be one of "r", "w"'],
      ['{"path":"a","lines":[1,2.5]}', 'invalid arguments: arguments.lines[1] must be an integer'],
      ['{"path":"a","opts":{"deep":"yes"}}', 'invalid arguments: arguments.opts.deep must be a boolean or null'],
      ['{"path":"a","opts":{"other key":1}}', 'invalid arguments: arguments.opts["other key"] is not allowed'],
      ['{"path":"a","extra":true}', 'invalid arguments: arguments.extra is not allowed'],
    ]
    for (const [args, message] of cases) {
      expect((await app.tools.execute(call('read', args))).error).toEqual({ name: 'ToolError', code: 'INVALID_ARGS', message })
    }
    expect(await app.tools.execute(call('read', '{"path":"a","mode":"w","lines":[1],"opts":{"deep":null},"x-note":1}')))
      .toMatchObject({ error: { code: 'INVALID_ARGS', message: 'invalid arguments: arguments["x-note"] is not allowed' } })
    expect(await app.tools.execute(call('read', '{"path":"a","mode":"w","lines":[1],"opts":{"deep":null}}')))
      .toEqual({ isError: false, content: [{ type: 'text', text: 'ok' }] })
  })

  it('ignores keywords outside the subset (they are annotations)', async () => {
    const app = await boot()
    app.tools.register(echo('t', { parameters: { type: 'object', properties: { n: { type: 'number', minimum: 10 } }, additionalProperties: true } }))
    expect((await app.tools.execute(call('t', '{"n":1,"other":2}'))).isError).toBe(false)
  })
})

describe('execute: bodies', () => {
  it('passes parsed arguments and the call context to the body and normalises its return value', async () => {
    const app = await boot()
    let seen: [unknown, ToolContext] | undefined
    app.tools.register(echo('a', {
      execute: (args, context) => {
        seen = [args, context]
        return { content: [{ type: 'text', text: 'x' }, { type: 'image', image: { uri: 'file:///a.png', mediaType: 'image/png' } }], isError: true, meta: { n: 1 } }
      },
    }))
    const execution = call('a', '{"text":"hi"}', { turn: 3, step: 2 })
    expect(await app.tools.execute(execution)).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'x' }, { type: 'image', image: { uri: 'file:///a.png', mediaType: 'image/png' } }],
      meta: { n: 1 },
    })
    expect(seen![0]).toEqual({ text: 'hi' })
    expect(seen![1]).toMatchObject({ callId: 'c1', turn: 3, step: 2, session: execution.session })
    expect(seen![1].signal).toBeInstanceOf(AbortSignal)
  })

  it('an invalid return value is a TOOL_ERROR outcome', async () => {
    const app = await boot()
    app.tools.register(echo('a', { execute: () => 42 as unknown as string }))
    expect((await app.tools.execute(call('a'))).error).toEqual({
      name: 'ToolError', code: 'TOOL_ERROR',
      message: 'tool "a" returned an invalid result: expected a string, text/image parts, or { content, isError?, meta? }',
    })
  })

  it('L-152 parts core would refuse in a tool/result, and unknown result keys, are a TOOL_ERROR outcome naming them, never content', async () => {
    const app = await boot()
    const cases: [unknown, string][] = [
      [[{ type: 'text', text: 'a', cache: true }], 'content[0].cache is not allowed'],
      [{ content: [{ type: 'text', text: 'ok' }, { type: 'image', image: { uri: 'file:///a.png', mediaType: 'image/png', width: -1 } }] },
        'content[1].image.width must be a positive safe integer'],
      [[{ type: 'reasoning', text: 'hidden' }], 'content[0].type must be one of "text", "image"'],
      [{ content: [{ type: 'text', text: 'x' }], meta: { n: Number.NaN } }, 'meta is not lossless JSON'],
      [{ content: 7 }, 'content must be a string or text/image parts'],
      [{ content: 'ok', extra: { kept: false } }, 'unknown key "extra" (expected { content, isError?, meta? })'],
      [{ isError: false, content: 'ok', Meta: 1 }, 'unknown key "Meta" (expected { content, isError?, meta? })'],
    ]
    for (const [value, why] of cases) {
      const off = app.tools.register(echo('bad', { execute: () => value as string }))
      expect((await app.tools.execute(call('bad'))).error).toEqual({
        name: 'ToolError', code: 'TOOL_ERROR', message: `tool "bad" returned an invalid result: ${why}`,
      })
      off()
    }
  })

  it('L-091 ToolError keeps its code; any other throw is TOOL_ERROR with the thrown name', async () => {
    const app = await boot()
    app.tools.register(echo('coded', { execute: () => { throw new ToolError('x', 'E1') } }))
    app.tools.register(echo('plain', { execute: () => { throw new TypeError('bad input') } }))
    expect(await app.tools.execute(call('coded'))).toEqual({
      isError: true, content: [{ type: 'text', text: 'Error: x' }], error: { name: 'ToolError', code: 'E1', message: 'x' },
    })
    expect(await app.tools.execute(call('plain'))).toEqual({
      isError: true, content: [{ type: 'text', text: 'Error: bad input' }], error: { name: 'TypeError', code: 'TOOL_ERROR', message: 'bad input' },
    })
  })

  it('L-091 [ft] timeoutMs exceeded → TOOL_TIMEOUT and the body\'s signal is aborted', async () => {
    vi.useFakeTimers()
    const app = await boot()
    let bodySignal: AbortSignal | undefined
    app.tools.register(echo('slow', {
      timeoutMs: 1000,
      execute: (_args, { signal }) => {
        bodySignal = signal
        return new Promise<string>(() => {})
      },
    }))
    const pending = app.tools.execute(call('slow'))
    await vi.advanceTimersByTimeAsync(999)
    expect(bodySignal!.aborted).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    expect(await pending).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'Error: tool "slow" timed out after 1000 ms' }],
      error: { name: 'ToolError', code: 'TOOL_TIMEOUT', message: 'tool "slow" timed out after 1000 ms' },
    })
    expect(bodySignal!.aborted).toBe(true)
    expect(vi.getTimerCount()).toBe(0)
  })

  it('a body that throws after the execution signal fired is ABORTED; one that resolves keeps its result', async () => {
    const app = await boot()
    let started!: () => void
    const running = new Promise<void>(resolve => { started = resolve })
    app.tools.register(echo('stops', {
      execute: (_args, { signal }) => new Promise((_resolve, reject) => {
        signal.addEventListener('abort', () => reject(signal.reason))
        started()
      }),
    }))
    let finish!: (text: string) => void
    app.tools.register(echo('ignores', {
      execute: () => new Promise<string>(resolve => {
        finish = resolve
        started()
      }),
    }))
    const controller = new AbortController()
    const stopping = app.tools.execute(call('stops', '{}', { signal: controller.signal }))
    await running
    controller.abort(new CodedError('X', 'user cancelled', 'AbortError'))
    expect((await stopping).error).toEqual({ name: 'AbortError', code: 'ABORTED', message: 'user cancelled' })

    const other = new AbortController()
    const ignoring = app.tools.execute(call('ignores', '{}', { signal: other.signal }))
    await new Promise(resolve => setTimeout(resolve, 0))
    other.abort()
    finish('done anyway')
    expect(await ignoring).toEqual({ isError: false, content: [{ type: 'text', text: 'done anyway' }] })
  })

  it('a signal aborted before the body is ABORTED without running it', async () => {
    const app = await boot()
    const body = vi.fn(() => 'ran')
    app.tools.register(echo('a', { execute: body }))
    const controller = new AbortController()
    controller.abort()
    expect(await app.tools.execute(call('a', '{}', { signal: controller.signal }))).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'Error: tool "a" was aborted before its body ran' }],
      error: { name: 'ToolError', code: 'ABORTED', message: 'tool "a" was aborted before its body ran' },
    })
    expect(body).not.toHaveBeenCalled()
  })
})

describe('execute: tools/before-execute', () => {
  it('L-092 a rejecting listener fails the call closed: body not run, the outcome carries the rejection\'s code', async () => {
    const app = await boot()
    const body = vi.fn(() => 'ran')
    app.tools.register(echo('a', { execute: body }))
    app.on('tools/before-execute', async () => {
      throw new CodedError('CHECKPOINT_FAILED', 'flush failed: disk full', 'CheckpointError')
    })
    expect(await app.tools.execute(call('a'))).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'Error: flush failed: disk full' }],
      error: { name: 'CheckpointError', code: 'CHECKPOINT_FAILED', message: 'flush failed: disk full' },
    })
    expect(body).not.toHaveBeenCalled()
  })

  it('carries the earliest-registered failing listener\'s code; an uncoded failure is HOOK_FAILED', async () => {
    const app = await boot()
    app.tools.register(echo('a'))
    app.on('tools/before-execute', () => undefined)
    const first = app.on('tools/before-execute', async () => {
      await new Promise(resolve => setTimeout(resolve, 5))
      throw new CodedError('FIRST', 'first')
    })
    app.on('tools/before-execute', () => {
      throw new Error('second')
    })
    expect((await app.tools.execute(call('a'))).error).toEqual({ name: 'CodedError', code: 'FIRST', message: 'first' })
    first()
    expect((await app.tools.execute(call('a'))).error).toEqual({
      name: 'Error', code: 'HOOK_FAILED', message: 'tools/before-execute listener failed: second',
    })
  })

  it('awaits the hook with the execution itself, after argument checks and before the body', async () => {
    const app = await boot()
    const order: string[] = []
    app.tools.register(echo('a', { execute: () => { order.push('body'); return 'ok' } }))
    let seen: unknown
    app.on('tools/before-execute', async execution => {
      seen = execution
      await new Promise(resolve => setTimeout(resolve, 5))
      order.push('hook')
    })
    const execution = call('a')
    await app.tools.execute(execution)
    await app.tools.execute(call('a', '{'))
    expect(order).toEqual(['hook', 'body'])
    expect(seen).toBe(execution)
  })
})
