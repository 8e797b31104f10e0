import { describe, expect, it } from 'vitest'
import { exportOtelGenAi, GENAI_SEMCONV_VERSION, importClaudeCode, importCodex, type OtlpSpan, type OtlpTraceExport } from '../src/index.ts'
import { fixture } from './helpers.ts'

const SID = '5d0c4f3e-2a1b-4c8d-9e7f-112233445566'

async function exported(content?: boolean): Promise<OtlpTraceExport> {
  const main = (await importClaudeCode({ path: fixture('claude-code.jsonl') })).sessions[0]!
  return exportOtelGenAi(main.events, main.header, content === undefined ? {} : { content })
}

const spansOf = (body: OtlpTraceExport): readonly OtlpSpan[] => body.resourceSpans[0]!.scopeSpans[0]!.spans
const attr = (span: OtlpSpan, key: string): unknown => {
  const value = span.attributes.find(a => a.key === key)?.value as Record<string, unknown> | undefined
  return value === undefined ? undefined : Object.values(value)[0]
}

describe('exportOtelGenAi', () => {
  it('L-191 one invoke_agent trace per turn, a chat span per response, an execute_tool span per call', async () => {
    const body = await exported()
    expect(body.resourceSpans[0]!.scopeSpans[0]!.schemaUrl).toBe(`https://opentelemetry.io/schemas/${GENAI_SEMCONV_VERSION}`)
    expect(GENAI_SEMCONV_VERSION).toBe('1.41.0')
    const spans = spansOf(body)
    expect(spans.map(span => span.name)).toEqual([
      'chat claude-sonnet-4-5-20250929', 'execute_tool Read', 'execute_tool Read', 'chat claude-sonnet-4-5-20250929', 'invoke_agent',
      'chat claude-sonnet-4-5-20250929', 'execute_tool Bash', 'chat claude-sonnet-4-5-20250929', 'execute_tool Task', 'chat claude-sonnet-4-5-20250929', 'invoke_agent',
      'chat claude-sonnet-4-5-20250929', 'execute_tool Write', 'invoke_agent',
    ])
    const roots = spans.filter(span => span.parentSpanId === undefined)
    expect(roots.map(root => attr(root, 'logbook.turn.number'))).toEqual(['1', '2', '3'])
    for (const span of spans) {
      const root = roots.find(r => r.traceId === span.traceId)!
      expect(span.traceId).toMatch(/^[0-9a-f]{32}$/)
      expect(span.spanId).toMatch(/^[0-9a-f]{16}$/)
      if (span !== root) expect(span.parentSpanId).toBe(root.spanId)
      expect(attr(span, 'gen_ai.conversation.id')).toBe(SID)
      expect(BigInt(span.endTimeUnixNano) >= BigInt(span.startTimeUnixNano)).toBe(true)
    }
    expect(new Set(roots.map(root => root.traceId)).size).toBe(3)
  })

  it('L-191 chat spans carry the messages the model saw and said, as parts, and the usage', async () => {
    const spans = spansOf(await exported())
    const first = spans[0]!
    expect(first.kind).toBe(3)
    expect(attr(first, 'gen_ai.operation.name')).toBe('chat')
    expect(attr(first, 'gen_ai.provider.name')).toBe('anthropic')
    expect([attr(first, 'gen_ai.usage.input_tokens'), attr(first, 'gen_ai.usage.output_tokens'), attr(first, 'gen_ai.usage.cache_read.input_tokens'), attr(first, 'gen_ai.usage.cache_creation.input_tokens')])
      .toEqual(['1200', '80', '300', '50'])
    expect(JSON.parse(attr(first, 'gen_ai.input.messages') as string)).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'Show me the weather files and read both.' }] },
    ])
    const output = JSON.parse(attr(first, 'gen_ai.output.messages') as string)
    expect(output).toEqual([{
      role: 'assistant', finish_reason: 'tool_call', parts: [
        { type: 'reasoning', content: 'Two files: README.md and main.py. Read them in parallel.' },
        { type: 'text', content: 'I\'ll read both files.' },
        { type: 'tool_call', id: 'toolu_01', name: 'Read', arguments: { file_path: '/home/dev/weather-app/README.md' } },
        { type: 'tool_call', id: 'toolu_02', name: 'Read', arguments: { file_path: '/home/dev/weather-app/main.py' } },
      ],
    }])
    const second = JSON.parse(attr(spans[3]!, 'gen_ai.input.messages') as string) as { role: string; parts: { type: string; id?: string }[] }[]
    expect(second.map(message => message.role)).toEqual(['user', 'assistant', 'tool', 'tool'])
    expect(second[2]!.parts[0]).toEqual({ type: 'tool_call_response', id: 'toolu_01', response: '# Weather app\nA CLI that prints the weather for a city.' })
    const withImage = JSON.parse(attr(spans[5]!, 'gen_ai.input.messages') as string) as { parts: { type: string }[] }[]
    expect(withImage.at(-1)!.parts.map(part => part.type)).toEqual(['text', 'blob'])
  })

  it('L-191 failed tool calls and an interrupted turn have error status and error.type', async () => {
    const spans = spansOf(await exported())
    const bash = spans.find(span => span.name === 'execute_tool Bash')!
    expect(bash.status).toEqual({ code: 2, message: 'Traceback (most recent call last):\nKeyError: \'Paris\'' })
    expect(attr(bash, 'error.type')).toBe('TOOL_ERROR')
    expect(attr(bash, 'gen_ai.tool.call.result')).toBeUndefined()
    expect(attr(spans.find(span => span.name === 'execute_tool Write')!, 'error.type')).toBe('TOOL_OUTCOME_UNKNOWN')
    const last = spans.at(-1)!
    expect([last.status?.code, attr(last, 'error.type'), attr(last, 'logbook.turn.end_reason')]).toEqual([2, 'interrupted', 'interrupted'])
    expect(spans[4]!.status).toBeUndefined()
  })

  it('L-191 the same log exports to the same bytes; other sessions get other ids', async () => {
    expect(JSON.stringify(await exported())).toBe(JSON.stringify(await exported()))
    const codex = (await importCodex({ path: fixture('codex.jsonl') })).sessions[0]!
    const other = spansOf(exportOtelGenAi(codex.events, codex.header))
    const ours = new Set(spansOf(await exported()).map(span => span.spanId))
    expect(other.some(span => ours.has(span.spanId))).toBe(false)
    expect(attr(other.find(span => span.name.startsWith('chat'))!, 'gen_ai.system_instructions')).toBe(JSON.stringify([{ type: 'text', content: 'Follow AGENTS.md: run the tests before you finish.' }]))
  })

  it('L-191 a chat span records the newest maxInputMessages of its input and counts the older ones it left out', async () => {
    const main = (await importClaudeCode({ path: fixture('claude-code.jsonl') })).sessions[0]!
    const spans = spansOf(exportOtelGenAi(main.events, main.header, { maxInputMessages: 2 }))
    const chat = spans[5]!
    expect(JSON.parse(attr(chat, 'gen_ai.input.messages') as string)).toEqual([
      { role: 'assistant', parts: [{ type: 'text', content: 'README describes the CLI; main.py looks the city up in CITIES.' }] },
      { role: 'user', parts: [{ type: 'text', content: 'Here is a screenshot of the bug.' }, { type: 'blob', modality: 'image', mime_type: 'image/png', content: expect.any(String) }] },
    ])
    expect(attr(chat, 'logbook.input.messages.omitted')).toBe('4')
    expect(attr(spans[0]!, 'logbook.input.messages.omitted')).toBeUndefined()
  })

  it('L-191 without content, spans keep their structure and usage but no messages, arguments or results', async () => {
    const spans = spansOf(await exported(false))
    const keys = new Set(spans.flatMap(span => span.attributes.map(a => a.key)))
    for (const key of ['gen_ai.input.messages', 'gen_ai.output.messages', 'gen_ai.tool.call.arguments', 'gen_ai.tool.call.result']) expect(keys.has(key)).toBe(false)
    expect(attr(spans[0]!, 'gen_ai.usage.input_tokens')).toBe('1200')
    expect(spans.find(span => span.name === 'execute_tool Bash')!.status).toEqual({ code: 2 })
  })
})
