/**
 * Shared fixtures: a real Cordis app (session store, a real persistence backend on a temporary folder, the search
 * plugin), log capture, and builders for the events of a conversation.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context, type Exporter, Logger } from '@deepseek-ai/cordis'
import SessionStore, {
  CallId, MessageId, type Session, type SessionEvent, SessionId, type SurfaceAppendOptions,
} from '@logbook/session'
import JsonlSessionPersistence from '@logbook/session-persistence-jsonl'
import SqliteSessionPersistence from '@logbook/session-persistence-sqlite'
import Database from 'better-sqlite3'
import { afterAll } from 'vitest'
import SessionSearch, { type SessionSearchConfig } from '../src/index.ts'

const dirs: string[] = []
afterAll(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** A fresh temporary folder, removed after the file's tests. */
export function tempDir(prefix = 'logbook-search-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  dirs.push(dir)
  return dir
}

/** Which store an app mounts. */
export type StoreKind = { readonly kind: 'jsonl'; readonly root: string } | { readonly kind: 'sqlite'; readonly path: string }

/** A mounted app. */
export interface TestApp {
  readonly app: Context
  /** Warnings and errors the app logged, formatted. */
  readonly logs: string[]
  readonly search: SessionSearch
  stop(): Promise<void>
}

type Fiber = { dispose(): Promise<unknown> | unknown }

/**
 * Mount the store, the backend on `store` (with `persistence` config), and the search plugin with `config` (indexing
 * right away and comparing with the store before every query, unless overridden).
 */
export async function mountApp(store: StoreKind, config: Partial<SessionSearchConfig> = {}, persistence: Record<string, unknown> = {}): Promise<TestApp> {
  const app = new Context()
  const logs: string[] = []
  const exporter: Exporter = { colors: false, levels: { default: 2 }, export: message => logs.push(Logger.format(exporter, message)) }
  app.logger.exporter(exporter)
  const fibers: Fiber[] = []
  fibers.push(await app.plugin(SessionStore))
  if (store.kind === 'jsonl') fibers.push(await app.plugin(JsonlSessionPersistence, { root: store.root, durability: 'none', ...persistence } as never))
  else fibers.push(await app.plugin(SqliteSessionPersistence, { path: store.path, synchronous: 'normal', ...persistence } as never))
  fibers.push(await app.plugin(SessionSearch, { indexDelayMs: 0, reconcileIntervalMs: 0, ...config } as SessionSearchConfig))
  return {
    app, logs,
    get search() {
      return app.sessionSearch
    },
    async stop() {
      for (const fiber of fibers.reverse()) await fiber.dispose()
    },
  }
}

/** A JSONL store root in a fresh folder. */
export function jsonlStore(): StoreKind {
  return { kind: 'jsonl', root: join(tempDir(), 'store') }
}

type LooseAppend = (type: string, data: unknown, opts?: unknown) => SessionEvent

/** Append any event type (plugin types are not in `SessionEventMap` here). */
export function appendAs(session: Session, type: string, data: unknown, opts?: unknown): SessionEvent {
  const append = session.append.bind(session) as unknown as LooseAppend
  return opts === undefined ? append(type, data) : append(type, data, opts)
}

const APPEND: SurfaceAppendOptions = { surfaceOp: 'append' }

/**
 * One complete turn: the prompt, one step whose reply streams `reply` in chunks and calls `tool` with `args`, the
 * tool's `result`, and a second step with the final answer `answer`. Returns the seqs of its main events.
 */
export function turn(session: Session, n: number, texts: { prompt: string; reply: string; tool?: string; args?: string; result?: string; answer?: string }) {
  session.append('turn/start', { turn: n })
  const user = session.append('user/message', { id: MessageId(`user-${session.seq}`), role: 'user', source: { kind: 'user' }, content: [{ type: 'text', text: texts.prompt }] }, APPEND)
  session.append('step/start', { turn: n, step: 1 })
  const chunks: number[] = []
  for (const word of texts.reply.split(' ')) {
    chunks.push(session.append('assistant/chunk', { turn: n, step: 1, chunk: { type: 'text-delta', index: 0, text: `${word} ` } }).seq)
  }
  const callId = CallId(`call-${n}`)
  const content = texts.tool === undefined
    ? [{ type: 'text' as const, text: texts.reply }]
    : [{ type: 'text' as const, text: texts.reply }, { type: 'tool-call' as const, id: callId, name: texts.tool, arguments: texts.args ?? '{}' }]
  const assistant = session.append('assistant/message', {
    turn: n, step: 1, message: { id: MessageId(`assistant-${session.seq}`), role: 'assistant', source: { kind: 'model', provider: 'test', model: 'm' }, content },
  }, { surfaceOp: 'append', sourceEventSeqs: chunks })
  let result: number | undefined
  if (texts.tool !== undefined) {
    const call = session.append('tool/call', { turn: n, step: 1, callId, name: texts.tool, arguments: texts.args ?? '{}' })
    result = session.append('tool/result', {
      turn: n, step: 1,
      message: { id: MessageId(`tool-result-${session.seq}`), role: 'user', source: { kind: 'tool', callId }, content: [{ type: 'tool-result', toolCallId: callId, content: [{ type: 'text', text: texts.result ?? '' }] }] },
    }, { surfaceOp: 'append', sourceEventSeqs: [call.seq] }).seq
  }
  session.append('step/end', { turn: n, step: 1 })
  let answer: number | undefined
  if (texts.answer !== undefined) {
    session.append('step/start', { turn: n, step: 2 })
    answer = session.append('assistant/message', {
      turn: n, step: 2, message: { id: MessageId(`assistant-${session.seq}`), role: 'assistant', source: { kind: 'model', provider: 'test', model: 'm' }, content: [{ type: 'text', text: texts.answer }] },
    }, { surfaceOp: 'append', sourceEventSeqs: [] }).seq
    session.append('step/end', { turn: n, step: 2 })
  }
  session.append('turn/end', { turn: n, reason: { kind: 'completed' } })
  return { user: user.seq, assistant: assistant.seq, result, answer }
}

/** A live session `id` in `app`'s store, created on a fiber of its own. */
export async function createSession(t: TestApp, id: string): Promise<Session> {
  let session: Session | undefined
  const fiber = t.app.plugin({ name: `session-${id}`, inject: ['sessions'], apply: ctx => { session = ctx.sessions.create(SessionId(id)) } })
  await fiber
  owners.set(session!, fiber)
  return session!
}

const owners = new WeakMap<Session, Fiber>()

/** Fork `parent` after `boundary` into a live session `id` on a fiber of its own (01 §7). */
export async function forkSession(t: TestApp, parent: Session, boundary: number, id: string): Promise<Session> {
  let session: Session | undefined
  const fiber = t.app.plugin({ name: `fork-${id}`, inject: ['sessions'], apply: ctx => { session = ctx.sessions.fork(parent, boundary, SessionId(id)) } })
  await fiber
  owners.set(session!, fiber)
  return session!
}

/** Store what `session` holds, detach it, and wait until persistence released its write ownership. */
export async function detachSession(t: TestApp, session: Session): Promise<void> {
  await t.app.sessions.flush(session)
  const released = new Promise<void>(resolve => {
    const off = t.app.on('persistence/released', event => {
      if (event.sessionId !== session.id) return
      off()
      resolve()
    })
  })
  await owners.get(session)!.dispose()
  await released
}

/** The hits' `(sessionId, seq, field, onSurface)`, for compact assertions. */
export function brief(hits: readonly { sessionId: string; seq: number; field: string; onSurface: boolean }[]): string[] {
  return hits.map(hit => `${hit.sessionId}@${hit.seq} ${hit.field} ${hit.onSurface ? 'surface' : 'log-only'}`)
}

/** The matched texts of a hit's snippet. */
export function matches(hit: { snippet: readonly { text: string; match: boolean }[] }): string[] {
  return hit.snippet.filter(part => part.match).map(part => part.text)
}

/**
 * Run FTS5's `integrity-check` on both indexes of the index file at `path` (on a connection of its own): it throws
 * when an index holds an entry its texts do not, or misses one they do.
 */
export function checkIndex(path: string): void {
  const db = new Database(path)
  try {
    db.exec("INSERT INTO search_words (search_words, rank) VALUES ('integrity-check', 1)")
    db.exec("INSERT INTO search_grams (search_grams, rank) VALUES ('integrity-check', 1)")
  } finally {
    db.close()
  }
}
