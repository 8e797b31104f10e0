/**
 * Types of the session core (spec 01 §1). Every message, block, header and event type is deeply readonly because
 * stored values are frozen. This file holds types only.
 */

declare const brand: unique symbol

/** A session id; ids become file names in persistence (01 §1.1). */
export type SessionId = string & { readonly [brand]: 'SessionId' }
/** A message id. */
export type MessageId = string & { readonly [brand]: 'MessageId' }
/** A tool-call id. */
export type CallId = string & { readonly [brand]: 'CallId' }

/** A lossless JSON value (01 §3.2). */
export type JsonValue = null | boolean | number | string | readonly JsonValue[] | { readonly [key: string]: JsonValue }

// ---------------------------------------------------------------------------------------------------------------
// Messages and content blocks (01 §1.2)

export interface TextBlock { readonly type: 'text'; readonly text: string }
export interface ReasoningBlock { readonly type: 'reasoning'; readonly text: string }
/** A model's refusal to answer, kept as its own part of the reply (format 2). */
export interface RefusalBlock { readonly type: 'refusal'; readonly text: string }
export type ImageMediaType = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp'
export interface ImageRef {
  readonly uri: string
  readonly mediaType: ImageMediaType
  readonly width?: number
  readonly height?: number
  readonly bytes?: number
  readonly sha256?: string
  readonly name?: string
}
export interface ImageBlock { readonly type: 'image'; readonly image: ImageRef }
export interface ToolCallBlock { readonly type: 'tool-call'; readonly id: CallId; readonly name: string; readonly arguments: string }
export interface ToolResultBlock {
  readonly type: 'tool-result'
  readonly toolCallId: CallId
  readonly content: readonly (TextBlock | ImageBlock)[]
  readonly isError?: boolean
}
/** The parts an assistant message may hold. */
export type AssistantBlock = TextBlock | ReasoningBlock | RefusalBlock | ToolCallBlock
export type ContentBlock = TextBlock | ReasoningBlock | RefusalBlock | ImageBlock | ToolCallBlock | ToolResultBlock

/** Message sources; merge-extensible so plugins may add user-side kinds. */
export interface MessageSourceMap {
  user: { readonly kind: 'user' }
  plugin: { readonly kind: 'plugin'; readonly plugin: string }
  system: { readonly kind: 'system' }
  model: { readonly kind: 'model'; readonly provider: string; readonly model: string; readonly replayState?: JsonValue }
  tool: { readonly kind: 'tool'; readonly callId: CallId }
}
export type MessageSource = MessageSourceMap[keyof MessageSourceMap]
export type UserMessageSource = MessageSourceMap[Exclude<keyof MessageSourceMap, 'system' | 'model' | 'tool'>]
export type SystemMessageSource = MessageSourceMap['system' | 'plugin']

interface MessageOf<R, C, S> { readonly id: MessageId; readonly role: R; readonly content: C; readonly source: S }
export type SystemMessage = MessageOf<'system', readonly TextBlock[], SystemMessageSource>
export type UserMessage = MessageOf<'user', readonly (TextBlock | ImageBlock)[], UserMessageSource>
export type AssistantMessage = MessageOf<'assistant', readonly AssistantBlock[], MessageSourceMap['model']>
export type ToolResultMessage = MessageOf<'user', readonly [ToolResultBlock], MessageSourceMap['tool']>
export type Message = SystemMessage | UserMessage | AssistantMessage | ToolResultMessage

// ---------------------------------------------------------------------------------------------------------------
// Streaming, accounting and request records (01 §1.3)

export interface TokenUsage {
  readonly inputTokens: number
  readonly outputTokens: number
  readonly cacheReadTokens?: number
  readonly cacheWriteTokens?: number
  readonly reasoningTokens?: number
}
export interface LlmFailure {
  readonly message: string
  readonly code: string
  readonly status?: number
  readonly retryAfterMs?: number
  readonly requestId?: string
}
export type FinishReason = 'stop' | 'tool-calls' | 'max-tokens' | 'error' | 'aborted'
export type StreamChunk =
  | { readonly type: 'block-start'; readonly index: number; readonly blockType: AssistantBlock['type'] }
  | { readonly type: 'text-delta' | 'reasoning-delta' | 'refusal-delta'; readonly index: number; readonly text: string }
  | { readonly type: 'tool-call-delta'; readonly index: number; readonly id: CallId; readonly name?: string; readonly argumentsDelta: string }
  | { readonly type: 'block-end'; readonly index: number; readonly block: AssistantBlock }
  | { readonly type: 'usage'; readonly usage: TokenUsage }
  | { readonly type: 'finish'; readonly reason: FinishReason; readonly error?: LlmFailure; readonly rawFinishReason?: string }

export interface TodoItem { readonly content: string; readonly status: 'pending' | 'in_progress' | 'completed' }
export interface ToolSchema { readonly name: string; readonly description: string; readonly parameters: { readonly [key: string]: JsonValue } }
export interface RequestConfig {
  readonly provider: string
  readonly model: string
  readonly reasoningEffort?: string
  readonly maxTokens?: number
  readonly temperature?: number
  readonly [extra: string]: JsonValue | undefined
}
export interface RequestHeader { readonly config: RequestConfig; readonly tools?: readonly ToolSchema[] }
export type RequestHeaderReason = 'initial' | 'resume' | 'change'
export interface RequestContext { readonly provider: string; readonly model: string; readonly contextWindow?: number }
export type AgentCancelCause = { readonly kind: 'user' | 'parent' | 'disposed' }
/** Turn end reasons; merge-extensible. */
export interface TurnEndReasonMap {
  completed: { readonly kind: 'completed' }
  aborted: { readonly kind: 'aborted'; readonly reason: AgentCancelCause }
  blocked: { readonly kind: 'blocked' }
  error: { readonly kind: 'error'; readonly error: LlmFailure }
  'max-tokens': { readonly kind: 'max-tokens' }
  'max-steps': { readonly kind: 'max-steps' }
  interrupted: { readonly kind: 'interrupted' }
  forked: { readonly kind: 'forked' }
}
export type TurnEndReason = TurnEndReasonMap[keyof TurnEndReasonMap]

// ---------------------------------------------------------------------------------------------------------------
// Events (01 §1.4)

/** Payload of every event type; merge-extensible by plugins (plugin types are log-only). */
export interface SessionEventMap {
  'turn/start': { readonly turn: number }
  'turn/end': { readonly turn: number; readonly reason: TurnEndReason }
  'step/start': { readonly turn: number; readonly step: number }
  'step/end': { readonly turn: number; readonly step: number }
  'system/message': SystemMessage
  'user/message': UserMessage
  'assistant/chunk': { readonly turn: number; readonly step: number; readonly chunk: StreamChunk }
  'assistant/message': {
    readonly turn: number
    readonly step: number
    readonly message: AssistantMessage
    readonly usage?: TokenUsage
    readonly interrupted?: true
    /** Format 2: the stream completed without a usage chunk (never set together with `usage`). */
    readonly usageMissing?: true
    /** Format 2: the provider's own finish reason, as the adapter received it. */
    readonly rawFinishReason?: string
  }
  'tool/call': { readonly turn: number; readonly step: number; readonly callId: CallId; readonly name: string; readonly arguments: string }
  'tool/result': {
    readonly turn: number
    readonly step: number
    readonly message: ToolResultMessage
    readonly error?: { readonly name: string; readonly code: string }
    readonly meta?: JsonValue
  }
  'todo/write': { readonly todos: readonly TodoItem[] }
  'request/header': { readonly header: RequestHeader; readonly reason: RequestHeaderReason }
  'request/context': RequestContext
  'session/end-seed': { readonly inherited?: true }
}

export type SessionEventType = keyof SessionEventMap
export type SurfaceEventType = 'system/message' | 'user/message' | 'assistant/message' | 'tool/result'
export type SurfaceOp = 'append' | { readonly op: 'replace'; readonly start: number; readonly end: number }

export type SessionEvent<T extends SessionEventType = SessionEventType> = {
  [K in T]: {
    readonly type: K
    readonly seq: number
    readonly time: number
    readonly data: SessionEventMap[K]
    readonly ignorable?: true
  } & (K extends SurfaceEventType ? { readonly surfaceOp?: SurfaceOp; readonly sourceEventSeqs?: readonly number[] } : {})
}[T]
export type SurfaceEvent = SessionEvent<SurfaceEventType> & { readonly surfaceOp: SurfaceOp }
export interface SurfaceAppendOptions { readonly surfaceOp: SurfaceOp; readonly sourceEventSeqs?: readonly number[] }
export interface LogAppendOptions { readonly ignorable?: true }

// ---------------------------------------------------------------------------------------------------------------
// Header and construction inputs (01 §1.5)

export interface SessionHeader {
  readonly version: number
  readonly id: SessionId
  readonly createdAt: number
  readonly cwd?: string
  readonly parentSession?: SessionId
  readonly isSeeded?: boolean
  readonly seedLength?: number
  readonly origin?: 'subagent'
  readonly delegationDepth?: number
  readonly agentPreset?: string
  /** Format 2: where an imported session came from; a fork child does not inherit it. */
  readonly importedFrom?: SessionImportSource
}
/** The source of an imported session (format 2): the tool, and what it names the source by. */
export interface SessionImportSource {
  /** The source tool, e.g. `claude-code`, `codex`, `pi`, `logbook`. */
  readonly tool: string
  /** The source file's path as it was given to the importer. */
  readonly file?: string
  /** The source tool's own session id. */
  readonly sourceId?: string
  /** The id of the source record the session ends at (tree-shaped sources). */
  readonly leaf?: string
}
export type SessionMeta = Partial<Omit<SessionHeader, 'version' | 'id'>>
export type SessionSeedEventState = 'detached' | 'shared-frozen'
export interface SessionInit { readonly seed?: readonly SessionEvent[]; readonly header?: SessionHeader; readonly inheritedEventCount?: number }
export interface RestoreInit {
  readonly seed: readonly SessionEvent[]
  readonly header: SessionHeader
  readonly inheritedEventCount: number
  readonly eventState: SessionSeedEventState
}
export interface CreateSessionOptions { readonly seed?: readonly SessionEvent[]; readonly meta?: SessionMeta; readonly inheritedEventCount?: number }
export type RestoreSessionOptions = Omit<RestoreInit, 'header'> & { readonly meta: SessionHeader }
/** Restore iff `eventState` is present. */
export type PrepareSessionOptions = CreateSessionOptions | RestoreSessionOptions

/** The model-visible surface: ordered node seqs plus the replace generation (01 §4.1). */
export interface SessionSurface { readonly nodes: readonly number[]; readonly replaceGeneration: number }

/** What `foldSurface` returns: fresh, mutable arrays. */
export interface FoldedSurface {
  nodes: number[]
  replaceGeneration: number
  replacements: { seq: number; start: number; end: number; shadowedSeqs: number[] }[]
}

/** The cause `openTurnClosers` closes an open turn with (01 §8). */
export type CloserCause = { readonly kind: 'interrupted' } | { readonly kind: 'forked' }

/** The 14 core event types of 01 §2.1; `SessionEventType` also holds the types plugins merge in. */
export type CoreSessionEventType =
  | 'turn/start' | 'turn/end' | 'step/start' | 'step/end' | 'system/message' | 'user/message' | 'assistant/chunk'
  | 'assistant/message' | 'tool/call' | 'tool/result' | 'todo/write' | 'request/header' | 'request/context'
  | 'session/end-seed'
