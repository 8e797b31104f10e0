/**
 * Types of `@logbook/session-interop`: what an import returns (sessions ready to store, and a report), the
 * intermediate conversation items every importer produces, and the shapes of the two exports. Types only.
 */

import type {
  AssistantMessage, ImageBlock, JsonValue, SessionEvent, SessionHeader, TextBlock, TokenUsage, TurnEndReason,
  UserMessageSource,
} from '@logbook/session'

/** The transcript formats an importer reads. */
export type ImportTool = 'claude-code' | 'codex' | 'pi'

/** Where an importer reads from: a file by path, or the file's text (then `options.file` names it, if at all). */
export type ImportInput = { readonly path: string } | { readonly text: string }

/** Options shared by every importer. */
export interface ImportOptions {
  /** The Logbook id of the main session; default: the source's own session id. */
  readonly id?: string
  /** The source path recorded in `header.importedFrom.file`; default: `input.path`, absent for text input. */
  readonly file?: string
}

/** How an imported session relates to the source's main conversation. */
export type ImportedRole = 'main' | 'branch' | 'subagent'

/** What one imported session holds. */
export interface ImportedCounts {
  readonly events: number
  readonly turns: number
  readonly toolCalls: number
}

/**
 * One session ready for `sessionPersistence.create(header)` + `handle.append(events)`, already checked by
 * `Session.create` and by the session and compaction relation rules.
 */
export interface ImportedSession {
  readonly role: ImportedRole
  readonly header: SessionHeader
  readonly events: readonly SessionEvent[]
  /** `header.seedLength` for a branch (a fork of the main session), else 0. */
  readonly inheritedEventCount: number
  readonly counts: ImportedCounts
}

/** What an importer did with the source, beyond the sessions. */
export interface ImportReport {
  readonly tool: ImportTool
  readonly file?: string
  /** The source tool's own session id, when the source names one. */
  readonly sourceId?: string
  /** Lines read from the source (blank lines excluded). */
  readonly records: number
  /** Records (or parts of them) that became no event, by label: a record type, or a reason. */
  readonly skipped: Readonly<Record<string, number>>
  /** The labels of `skipped` that are record types this importer does not know. */
  readonly unknownTypes: readonly string[]
  /** One line per noteworthy decision (a torn final line, a dropped duplicate, a compaction that replaced nothing). */
  readonly notes: readonly string[]
}

/** What every importer returns. */
export interface ImportResult {
  readonly sessions: readonly ImportedSession[]
  readonly report: ImportReport
}

/** How a source response ended, as far as the turn's closing reason is concerned. */
export type ItemStop = 'stop' | 'max-tokens' | 'error' | 'aborted'

/** A system prompt or instructions. */
export interface SystemItem {
  readonly kind: 'system'
  readonly key?: string
  readonly time?: number
  readonly text: string
}

/** A model-visible message on the user side (a prompt, context a tool injected, a command's output). */
export interface UserItem {
  readonly kind: 'user'
  readonly key?: string
  readonly time?: number
  readonly content: readonly (TextBlock | ImageBlock)[]
  /** Default `{ kind: 'user' }`. */
  readonly source?: UserMessageSource
}

/** One model response: every block of it, merged from however many source records held it. */
export interface AssistantItem {
  readonly kind: 'assistant'
  readonly key?: string
  readonly time?: number
  readonly id?: string
  readonly provider: string
  readonly model: string
  readonly blocks: AssistantMessage['content'][number][]
  usage?: TokenUsage
  stop?: ItemStop
  /** The source's own stop reason, kept verbatim. */
  rawStop?: string
  /** The error message a response that ended in error carried. */
  errorMessage?: string
  replayState?: JsonValue
}

/** The result of one tool call. */
export interface ToolResultItem {
  readonly kind: 'tool-result'
  readonly key?: string
  readonly time?: number
  readonly callId: string
  readonly content: readonly (TextBlock | ImageBlock)[]
  readonly isError: boolean
}

/** A compaction: the summary replaces the surface before `keepFromKey` (everything when absent). */
export interface CompactionItem {
  readonly kind: 'compaction'
  readonly key: string
  readonly time?: number
  summary?: string
  readonly trigger: 'manual' | 'auto'
  /** The key of the first item that stays model-visible. */
  readonly keepFromKey?: string
}

/** A session title. */
export interface TitleItem {
  readonly kind: 'title'
  readonly time?: number
  readonly title: string
}

/** An explicit end of the open turn (a source record saying the turn was aborted). */
export interface TurnEndItem {
  readonly kind: 'turn-end'
  readonly time?: number
  readonly reason: TurnEndReason
}

/** The source-neutral conversation every importer produces and one builder turns into Logbook events. */
export type ImportItem = SystemItem | UserItem | AssistantItem | ToolResultItem | CompactionItem | TitleItem | TurnEndItem

/** The Anthropic Messages API request body a session's surface becomes (`exportAnthropicMessages`). */
export interface AnthropicMessagesExport {
  readonly model: string | null
  readonly system?: string
  readonly messages: readonly AnthropicMessage[]
  readonly tools?: readonly { readonly name: string; readonly description: string; readonly input_schema: JsonValue }[]
}

/** One Anthropic message: a role and its content blocks. */
export interface AnthropicMessage {
  readonly role: 'user' | 'assistant'
  readonly content: readonly AnthropicBlock[]
}

/** The Anthropic content blocks the export writes. */
export type AnthropicBlock =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'thinking'; readonly thinking: string; readonly signature?: string }
  | { readonly type: 'image'; readonly source: AnthropicImageSource }
  | { readonly type: 'tool_use'; readonly id: string; readonly name: string; readonly input: JsonValue }
  | { readonly type: 'tool_result'; readonly tool_use_id: string; readonly content: readonly AnthropicBlock[]; readonly is_error?: true }

/** Where an exported image's bytes are. */
export type AnthropicImageSource =
  | { readonly type: 'base64'; readonly media_type: string; readonly data: string }
  | { readonly type: 'url'; readonly url: string }

/** An OTLP/JSON attribute value (`AnyValue`); 64-bit integers are strings, as OTLP/JSON writes them. */
export type OtlpValue =
  | { readonly stringValue: string }
  | { readonly intValue: string }
  | { readonly doubleValue: number }
  | { readonly boolValue: boolean }
  | { readonly arrayValue: { readonly values: readonly OtlpValue[] } }

/** An OTLP/JSON attribute. */
export interface OtlpAttribute {
  readonly key: string
  readonly value: OtlpValue
}

/** An OTLP/JSON span. `kind` 1 is INTERNAL, 3 is CLIENT; status `code` 2 is ERROR. */
export interface OtlpSpan {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly name: string
  readonly kind: number
  readonly startTimeUnixNano: string
  readonly endTimeUnixNano: string
  readonly attributes: readonly OtlpAttribute[]
  readonly status?: { readonly code: number; readonly message?: string }
}

/** An OTLP/JSON trace export request (`ExportTraceServiceRequest`) holding one session's spans. */
export interface OtlpTraceExport {
  readonly resourceSpans: readonly {
    readonly resource: { readonly attributes: readonly OtlpAttribute[] }
    readonly scopeSpans: readonly {
      readonly scope: { readonly name: string; readonly version: string }
      readonly schemaUrl: string
      readonly spans: readonly OtlpSpan[]
    }[]
  }[]
}
