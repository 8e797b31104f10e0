/**
 * Types of the projection registry (spec 03 §1): unit definitions, snapshots, change notices, checkpoints, the
 * built-in states and the plugin config. Types only.
 */
import type { JsonValue, Session, SessionEvent, TodoItem } from '@logbook/session'

/**
 * The part of a Standard Schema v1 the registry uses (schemastery schemas qualify). `validate` must answer
 * synchronously; a schema answering with a Promise accepts nothing.
 */
export interface StandardSchemaLike {
  readonly '~standard': {
    readonly version: 1
    readonly validate: (value: unknown) => unknown
  }
}

/**
 * The state type of each projection key, for `stateOf` and `register`. Merge your own keys into it:
 * `declare module '@logbook/session-projection' { interface ProjectionStates { 'acme/notes': NotesState } }`.
 */
export interface ProjectionStates {
  stats: StatsState
  todos: TodosState
  title: TitleState
}

/** The declared state type of `K`, or `any` for a key nobody declared. */
export type ProjectionStateOf<K extends string> = K extends keyof ProjectionStates ? ProjectionStates[K] : any

/**
 * A projection unit: a pure, synchronous fold over a session's events (03 §1.1). `apply` returns the same
 * reference for events it does not handle; states and views are lossless JSON; a unit without `view` is host-only.
 */
export interface ProjectionDefinition<S = unknown, V = unknown, K extends string = string> {
  /** `^[A-Za-z][A-Za-z0-9._/-]{0,63}$`; prefix it with your package (`acme/notes`). */
  readonly key: K
  /** A non-negative safe integer; bump it on any change of state shape or fold meaning. */
  readonly stateVersion: number
  /** Checks stored states (checkpoint rows) synchronously. */
  readonly stateSchema: StandardSchemaLike
  /** The state of an empty log. */
  init(): S
  /** The next state; the same reference for events the unit does not handle. */
  apply(state: S, event: SessionEvent): S
  /**
   * The event types `apply` folds; absent ⇒ every event. `apply` is then never called for another type, which is
   * the same as it returning the state unchanged: name every type it handles.
   */
  readonly eventTypes?: readonly string[]
  /** The client value; absent ⇒ host-only (only `stateOf` sees the state). */
  view?(state: S): V
}

/** Why a unit has no value in a snapshot: `apply` threw at `seq` (sticky) or `view` threw (clears on success). */
export interface ProjectionFault {
  readonly seq: number
  readonly phase: 'apply' | 'view'
  readonly message: string
}

/** What `snapshot` and `coldSnapshot` return (03 §1.2). */
export interface ProjectionSnapshot {
  readonly sessionId: string
  /** The last event folded into `values`: `S.seq − 1`, or −1 for an empty log. */
  readonly asOfSeq: number
  /** `view(state)` per viewable, non-faulted unit. */
  readonly values: Readonly<Record<string, unknown>>
  readonly faults: Readonly<Record<string, ProjectionFault>>
}

/** One `onChanged` notice: `key`'s view changed when the units processed event `seq` of `session`. */
export interface ProjectionChange {
  readonly session: Session
  readonly key: string
  readonly view: unknown
  readonly seq: number
}

/** An `onChanged` listener; failures are contained per listener. */
export type ProjectionChangeListener = (change: ProjectionChange) => void

/** One checkpoint row: the unit's state at the checkpoint's `seq` (a type alias, so it is assignable to JSON). */
export type ProjectionCheckpointRow = {
  readonly stateVersion: number
  readonly state: JsonValue
}

/** A projection checkpoint (03 §1.4); `seq` is every row's watermark and `anchor` copies the event at `seq`. */
export interface ProjectionCheckpointData {
  readonly sessionId: string
  readonly seq: number
  readonly anchor: { readonly time: number; readonly type: string }
  readonly rows: { readonly [key: string]: ProjectionCheckpointRow }
}

/** Payload of the diagnostic event `projection/checkpointed`, emitted after each successful checkpoint write. */
export interface ProjectionCheckpointedEvent {
  readonly sessionId: string
  readonly seq: number
  readonly anchor: { readonly time: number; readonly type: string }
  /** The keys of the rows written, in registration order. */
  readonly keys: readonly string[]
}

/** Options of `coldSnapshot`. */
export interface ColdSnapshotOptions {
  readonly signal?: AbortSignal
}

/** The plugin config (03 §1.2); defaults live in the schema (`config.ts`). */
export interface SessionProjectionConfig {
  readonly builtins: { readonly stats: boolean; readonly todos: boolean; readonly title: boolean }
  readonly checkpoint: { readonly enabled: boolean; readonly everyEvents: number }
}

/** The view of the built-in `stats` unit (03 §1.5); durations in milliseconds. */
export interface StatsView {
  readonly turns: number
  readonly steps: number
  readonly toolCalls: number
  readonly toolErrors: number
  readonly inputTokens: number
  readonly outputTokens: number
  readonly cacheReadTokens: number
  readonly reasoningTokens: number
  readonly compactions: number
  readonly turnMs: number
  readonly modelMs: number
  readonly toolMs: number
}

/** The state of `stats`: the totals (its view) plus the open turn, step and call start times. */
export interface StatsState {
  readonly totals: StatsView
  /** `time` of the open `turn/start`, or null. */
  readonly turnAt: number | null
  /** `time` of the open `step/start` until its first `assistant/message`, else null. */
  readonly stepAt: number | null
  /** `time` of each `tool/call` still waiting for its appended `tool/result`, by call id. */
  readonly callsAt: { readonly [callId: string]: number }
}

/** The state of `todos`: the list of the last `todo/write`, or null before any. */
export interface TodosState {
  readonly todos: readonly TodoItem[] | null
}

/** The state of `title`: the last explicit `session/title` (null when blank) and the first-prompt fallback. */
export interface TitleState {
  readonly explicit: string | null
  readonly fallback: string | null
}
