/**
 * `exportOtelGenAi`: a session's log as OpenTelemetry spans following the GenAI semantic conventions v1.41.0, in
 * OTLP/JSON. Each turn is a trace whose root is an `invoke_agent` span; each model response is a `chat` span (the
 * messages it saw as `gen_ai.input.messages`, its reply as `gen_ai.output.messages`, its usage); each tool call is an
 * `execute_tool` span. Every span carries `gen_ai.conversation.id` = the session id. Ids are derived from the session
 * id and event seqs, times from the events, so the same log always exports to the same bytes.
 */

import { createRequire } from 'node:module'
import {
  deriveEventMessage, isAppendSurfaceEvent, type Message, type RequestConfig, type SessionEvent, type SessionHeader,
  type ToolSchema, type TokenUsage, type TurnEndReason,
} from '@logbook/session'
import { finishReasonOf, genAiMessage } from './genai-messages.ts'
import {
  attributes, nanos, spanIdOf, SPAN_KIND_CLIENT, SPAN_KIND_INTERNAL, STATUS_ERROR, traceIdOf, type AttributeInput,
} from './otlp.ts'
import { SurfaceTrack } from './surface-track.ts'
import type { OtlpSpan, OtlpTraceExport } from './types.ts'
import { joinedText } from './wire.ts'

/** The version of the GenAI semantic conventions this export follows. */
export const GENAI_SEMCONV_VERSION = '1.41.0'

/** At most this many of a request's input messages are recorded on its chat span, by default. */
export const DEFAULT_MAX_INPUT_MESSAGES = 100

/** Options of `exportOtelGenAi`. */
export interface OtelExportOptions {
  /** Record messages, tool arguments and results on spans (the conventions' opt-in content); default true. */
  readonly content?: boolean
  /**
   * Record only the newest this-many input messages of each request (default 100), so the export grows linearly with
   * the session; `logbook.input.messages.omitted` counts the older ones left out.
   */
  readonly maxInputMessages?: number
}

interface Usage { input: number; output: number; cacheRead: number; cacheWrite: number; seen: boolean }
interface OpenTurn {
  readonly turn: number
  readonly seq: number
  readonly start: number
  readonly traceId: string
  readonly spanId: string
  readonly inputs: Message[]
  output?: Message
  provider?: string
  model?: string
  readonly usage: Usage
}
interface OpenCall { readonly seq: number; readonly start: number; readonly name: string; readonly args: string }

const ERROR_ENDINGS: ReadonlySet<string> = new Set(['error', 'aborted', 'interrupted', 'blocked'])
const { version } = createRequire(import.meta.url)('../package.json') as { version: string }

const json = (value: unknown): string => JSON.stringify(value)

function addUsage(sum: Usage, usage: TokenUsage | undefined): void {
  if (usage === undefined) return
  sum.seen = true
  sum.input += usage.inputTokens
  sum.output += usage.outputTokens
  sum.cacheRead += usage.cacheReadTokens ?? 0
  sum.cacheWrite += usage.cacheWriteTokens ?? 0
}

function usageAttributes(usage: TokenUsage | Usage | undefined): [string, AttributeInput][] {
  if (usage === undefined || ('seen' in usage && !usage.seen)) return []
  const u = 'seen' in usage ? usage : { input: usage.inputTokens, output: usage.outputTokens, cacheRead: usage.cacheReadTokens, cacheWrite: usage.cacheWriteTokens }
  return [
    ['gen_ai.usage.input_tokens', u.input], ['gen_ai.usage.output_tokens', u.output],
    ['gen_ai.usage.cache_read.input_tokens', u.cacheRead || undefined], ['gen_ai.usage.cache_creation.input_tokens', u.cacheWrite || undefined],
  ]
}

/** Walks one log and collects its spans. */
class SpanWalk {
  readonly spans: OtlpSpan[] = []
  private readonly surface = new SurfaceTrack()
  private turn: OpenTurn | undefined
  private readonly stepStarts = new Map<string, number>()
  private readonly calls = new Map<string, OpenCall>()
  private config: RequestConfig | undefined
  private tools: readonly ToolSchema[] | undefined
  private lastProvider: string | undefined
  private readonly messageCache = new Map<number, string>()

  constructor(private readonly events: readonly SessionEvent[], private readonly header: SessionHeader,
    private readonly content: boolean, private readonly maxInputs: number) {}

  run(): OtlpSpan[] {
    for (const event of this.events) {
      this.event(event)
      this.surface.apply(event)
    }
    if (this.turn !== undefined) this.endTurn(this.events.at(-1)!.time, undefined)
    return this.spans
  }

  private get sessionId(): string {
    return this.header.id
  }

  private event(event: SessionEvent): void {
    switch (event.type) {
      case 'turn/start': {
        const traceId = traceIdOf(this.sessionId, event.data.turn)
        this.turn = { turn: event.data.turn, seq: event.seq, start: event.time, traceId, spanId: spanIdOf(this.sessionId, event.seq), inputs: [], usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, seen: false } }
        return
      }
      case 'turn/end':
        if (this.turn !== undefined) this.endTurn(event.time, event.data.reason)
        return
      case 'step/start':
        this.stepStarts.set(`${event.data.turn}/${event.data.step}`, event.time)
        return
      case 'request/header':
        this.config = event.data.header.config
        this.tools = event.data.header.tools
        return
      case 'user/message':
        if (this.turn !== undefined && isAppendSurfaceEvent(event) && event.data.source.kind === 'user') this.turn.inputs.push(event.data)
        return
      case 'assistant/message':
        if (isAppendSurfaceEvent(event)) this.chat(event)
        return
      case 'tool/call':
        this.calls.set(event.data.callId, { seq: event.seq, start: event.time, name: event.data.name, args: event.data.arguments })
        return
      case 'tool/result':
        if (isAppendSurfaceEvent(event)) this.tool(event)
        return
      default:
        return
    }
  }

  private chat(event: SessionEvent<'assistant/message'>): void {
    const turn = this.turn
    if (turn === undefined) return
    const { message, usage } = event.data
    const { provider, model } = message.source
    turn.provider ??= provider
    turn.model ??= model
    turn.output = message
    this.lastProvider = provider
    addUsage(turn.usage, usage)
    const first = this.surface.node(0)
    const head = first !== undefined && this.events[first.seq]!.type === 'system/message' ? this.events[first.seq] : undefined
    const history = this.surface.size - (head === undefined ? 0 : 1)
    const omitted = Math.max(0, history - this.maxInputs)
    const inputs = this.content ? this.surface.from(this.surface.size - history + omitted).flatMap(node => this.messageJson(node.seq)) : []
    const finish = finishReasonOf(message, event.data.interrupted === true)
    const start = this.stepStarts.get(`${event.data.turn}/${event.data.step}`) ?? event.time
    const content = this.content
    this.spans.push({
      traceId: turn.traceId, spanId: spanIdOf(this.sessionId, event.seq), parentSpanId: turn.spanId, name: `chat ${model}`, kind: SPAN_KIND_CLIENT,
      startTimeUnixNano: nanos(start), endTimeUnixNano: nanos(event.time),
      attributes: attributes([
        ['gen_ai.operation.name', 'chat'], ['gen_ai.provider.name', provider], ['gen_ai.request.model', model],
        ['gen_ai.conversation.id', this.sessionId], ['gen_ai.request.max_tokens', this.config?.maxTokens],
        ['gen_ai.request.temperature', this.config?.temperature],
        ['gen_ai.response.id', message.id], ['gen_ai.response.model', model], ['gen_ai.response.finish_reasons', [finish]],
        ...usageAttributes(usage),
        ['gen_ai.system_instructions', content && head !== undefined ? json(genAiMessage(deriveEventMessage(head)!).parts) : undefined],
        ['gen_ai.input.messages', content ? `[${inputs.join(',')}]` : undefined],
        ['logbook.input.messages.omitted', content && omitted > 0 ? omitted : undefined],
        ['gen_ai.output.messages', content ? json([{ ...genAiMessage(message), finish_reason: finish }]) : undefined],
        ['gen_ai.tool.definitions', content && this.tools !== undefined && this.tools.length > 0
          ? json(this.tools.map(tool => ({ type: 'function', name: tool.name, description: tool.description, parameters: tool.parameters }))) : undefined],
      ]),
    })
  }

  /** The GenAI message JSON of the event at `seq` (none when it derives no message), computed once per event. */
  private messageJson(seq: number): string[] {
    let text = this.messageCache.get(seq)
    if (text === undefined) {
      const message = deriveEventMessage(this.events[seq]!)
      this.messageCache.set(seq, text = message === null ? '' : json(genAiMessage(message)))
    }
    return text === '' ? [] : [text]
  }

  private tool(event: SessionEvent<'tool/result'>): void {
    const turn = this.turn
    const { callId } = event.data.message.source
    const call = this.calls.get(callId)
    if (turn === undefined || call === undefined) return
    this.calls.delete(callId)
    const block = event.data.message.content[0]
    const result = joinedText(block.content)
    const failed = event.data.error !== undefined || block.isError === true
    const errorType = failed ? event.data.error?.code ?? 'TOOL_ERROR' : undefined
    this.spans.push({
      traceId: turn.traceId, spanId: spanIdOf(this.sessionId, call.seq), parentSpanId: turn.spanId, name: `execute_tool ${call.name}`, kind: SPAN_KIND_INTERNAL,
      startTimeUnixNano: nanos(call.start), endTimeUnixNano: nanos(event.time),
      attributes: attributes([
        ['gen_ai.operation.name', 'execute_tool'], ['gen_ai.tool.name', call.name], ['gen_ai.tool.call.id', callId],
        ['gen_ai.tool.type', 'function'], ['gen_ai.conversation.id', this.sessionId], ['error.type', errorType],
        ['gen_ai.tool.call.arguments', this.content ? call.args : undefined],
        ['gen_ai.tool.call.result', this.content && !failed ? result : undefined],
      ]),
      ...(failed ? { status: { code: STATUS_ERROR, ...(this.content ? { message: result } : {}) } } : {}),
    })
  }

  private endTurn(end: number, reason: TurnEndReason | undefined): void {
    const turn = this.turn!
    this.turn = undefined
    const failed = reason !== undefined && ERROR_ENDINGS.has(reason.kind)
    const errorType = !failed ? undefined : reason.kind === 'error' ? (reason as { error: { code: string } }).error.code : reason.kind
    const preset = this.header.agentPreset
    const output = turn.output === undefined ? undefined : [{ ...genAiMessage(turn.output), finish_reason: failed ? 'error' : 'stop' }]
    this.spans.push({
      traceId: turn.traceId, spanId: turn.spanId, name: preset === undefined ? 'invoke_agent' : `invoke_agent ${preset}`, kind: SPAN_KIND_INTERNAL,
      startTimeUnixNano: nanos(turn.start), endTimeUnixNano: nanos(end),
      attributes: attributes([
        ['gen_ai.operation.name', 'invoke_agent'], ['gen_ai.provider.name', turn.provider ?? this.lastProvider ?? 'unknown'],
        ['gen_ai.agent.name', preset], ['gen_ai.conversation.id', this.sessionId], ['gen_ai.request.model', turn.model],
        ...usageAttributes(turn.usage), ['error.type', errorType],
        ['gen_ai.input.messages', this.content ? json(turn.inputs.map(genAiMessage)) : undefined],
        ['gen_ai.output.messages', this.content && output !== undefined ? json(output) : undefined],
        ['logbook.turn.number', turn.turn], ['logbook.turn.end_reason', reason?.kind],
      ]),
      ...(failed ? { status: { code: STATUS_ERROR, message: reason.kind === 'error' ? (reason as { error: { message: string } }).error.message : reason.kind } } : {}),
    })
  }
}

/**
 * The OTLP/JSON trace export of the session whose header is `header` and log is `events` (GenAI semantic
 * conventions v1.41.0): one `invoke_agent` trace per turn with its `chat` and `execute_tool` spans; each chat span
 * records the newest `maxInputMessages` messages of its input. Pure and deterministic: the same log gives
 * byte-identical JSON.
 */
export function exportOtelGenAi(events: readonly SessionEvent[], header: SessionHeader, options: OtelExportOptions = {}): OtlpTraceExport {
  const spans = new SpanWalk(events, header, options.content ?? true, options.maxInputMessages ?? DEFAULT_MAX_INPUT_MESSAGES).run()
  return {
    resourceSpans: [{
      resource: { attributes: attributes([['service.name', 'logbook']]) },
      scopeSpans: [{
        scope: { name: '@logbook/session-interop', version },
        schemaUrl: `https://opentelemetry.io/schemas/${GENAI_SEMCONV_VERSION}`,
        spans,
      }],
    }],
  }
}
