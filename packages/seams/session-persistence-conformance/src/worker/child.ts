/**
 * Entry of a conformance child process (`node --conditions=source --import tsx child.ts`, IPC). It mounts
 * `@logbook/session` and the backend named by `WorkerInit`, then serves `WorkerRequest`s; see `protocol.ts`.
 * The parent kills it with SIGKILL in the [kill] cases, so nothing here relies on orderly shutdown.
 */

import { pathToFileURL } from 'node:url'
import { Context, type Fiber, type Plugin } from '@deepseek-ai/cordis'
import SessionStore, { openTurnClosers, type Session, type SessionId } from '@logbook/session'
import type { SessionHandle, SessionPersistence } from '@logbook/session-persistence'
import { crashScript, nextTurn } from '../crash/script.ts'
import { appendLive, completeTurn } from '../events.ts'
import type { CrashPlan, LiveAppend, WireError, WorkerInit, WorkerMessage, WorkerRequest } from './protocol.ts'

const send = (message: WorkerMessage): void => {
  process.send?.(message)
}

const toWire = (error: unknown): WireError => {
  const e = error as { name?: unknown; message?: unknown; code?: unknown; details?: unknown }
  const wire: { name: string; message: string; code?: string; details?: unknown } = {
    name: typeof e?.name === 'string' ? e.name : 'Error',
    message: typeof e?.message === 'string' ? e.message : String(error),
  }
  if (typeof e?.code === 'string') wire.code = e.code
  if (e?.details !== undefined) wire.details = JSON.parse(JSON.stringify(e.details)) as unknown
  return wire
}

/** `session.append(type, data, opts?)` for a wire-described append. */
const appendOne = (session: Session, a: LiveAppend): void => {
  const append = session.append as (type: string, data: unknown, opts?: unknown) => unknown
  if (a.opts === undefined) append.call(session, a.type, a.data)
  else append.call(session, a.type, a.data, a.opts)
}

const sleep = (ms: number): Promise<void> => new Promise(resolve => setTimeout(resolve, ms))

class Worker {
  readonly handles = new Map<string, SessionHandle>()
  readonly live = new Map<string, Session>()

  constructor(
    readonly store: Fiber,
    readonly backend: Fiber,
    readonly sessions: SessionStore,
    readonly persistence: SessionPersistence,
  ) {}

  async serve(request: WorkerRequest): Promise<unknown> {
    switch (request.op) {
      case 'open-write': {
        const handle = await this.persistence.open(request.id, 'write')
        this.handles.set(request.id, handle)
        return { nextSeq: handle.nextSeq, revision: handle.revision }
      }
      case 'append': {
        const result = await this.handle(request.id).append(request.events as never)
        return { nextSeq: result.nextSeq, revision: result.revision }
      }
      case 'close': {
        await this.handle(request.id).close()
        this.handles.delete(request.id)
        return null
      }
      case 'live-create': {
        const session = this.sessions.create(request.id as SessionId, { meta: { cwd: request.cwd } })
        this.live.set(request.id, session)
        return this.appendAll(session, request.appends, request.flush)
      }
      case 'live-append': {
        const session = this.live.get(request.id)
        if (!session) throw new Error(`no live session ${request.id} in this worker`)
        return this.appendAll(session, request.appends, request.flush)
      }
      case 'rounds':
        return { turns: await this.rounds(request.id, request.rounds) }
      case 'crash-run':
        return this.crashRun(request.plan)
      case 'dispose':
        await this.backend.dispose()
        await this.store.dispose()
        return null
    }
  }

  handle(id: string): SessionHandle {
    const handle = this.handles.get(id)
    if (!handle) throw new Error(`no open handle on ${id} in this worker`)
    return handle
  }

  async appendAll(session: Session, appends: readonly LiveAppend[], flush: boolean): Promise<{ seq: number }> {
    for (const a of appends) appendOne(session, a)
    if (flush) await this.sessions.flush(session)
    return { seq: session.seq }
  }

  /** Open for write (retrying while another process holds it), append one complete turn, close; `rounds` times. */
  async rounds(id: string, rounds: number): Promise<number> {
    let turns = 0
    for (let round = 0; round < rounds; round++) {
      let handle: SessionHandle | undefined
      for (let attempt = 0; !handle; attempt++) {
        try {
          handle = await this.persistence.open(id, 'write')
        } catch (error) {
          if ((error as { code?: unknown }).code !== 'SESSION_LOCKED' || attempt > 5000) throw error
          await sleep(1 + Math.floor(Math.random() * 4))
        }
      }
      try {
        const events = await handle.read(0)
        await handle.append(completeTurn(handle.nextSeq, nextTurn(events)))
        turns++
      } finally {
        await handle.close()
      }
    }
    return turns
  }

  /** Resume (or create) the session, report it, then run the script until killed; see `crash/script.ts`. */
  async crashRun(plan: CrashPlan & { readonly final?: boolean }): Promise<unknown> {
    let session: Session
    let closersFrom = 0
    let closers: readonly unknown[] = []
    let handle: SessionHandle | undefined
    try {
      handle = await this.persistence.open(plan.id, 'write')
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'SESSION_NOT_FOUND') throw error
    }
    if (handle) {
      const events = await handle.read(0)
      const built = openTurnClosers(events, { kind: 'interrupted' })
      closersFrom = handle.nextSeq
      if (built.length > 0) await handle.append(built)
      closers = built
      session = this.sessions.prepare(plan.id as SessionId, {
        seed: [...events, ...built], meta: handle.header,
        inheritedEventCount: handle.inheritedEventCount, eventState: handle.eventState,
      })
      handle.handOff()
      this.sessions.enter(session)
      this.sessions.announce(session)
    } else {
      session = this.sessions.create(plan.id as SessionId, { meta: { cwd: plan.cwd } })
    }
    const firstTurn = nextTurn(session.events)
    send({ kind: 'resumed', closersFrom, closers, scriptFrom: session.seq, firstTurn })
    if (plan.final) {
      for (const e of completeTurn(session.seq, firstTurn)) appendLive(session, e)
      await this.sessions.flush(session)
      send({ kind: 'ack', seq: session.seq })
      return { seq: session.seq }
    }
    for (const step of crashScript(plan.seed, plan.mode, firstTurn, plan.maxEvents)) {
      switch (step.do) {
        case 'append':
          appendOne(session, step.append)
          break
        case 'flush': {
          const target = session.seq
          await this.sessions.flush(session)
          send({ kind: 'ack', seq: target })
          break
        }
        case 'mark':
          send({ kind: 'mark', name: step.name, seq: session.seq, ...(step.callId === undefined ? {} : { callId: step.callId }) })
          await sleep(step.ms)
          break
        case 'yield':
          await new Promise(resolve => setImmediate(resolve))
          break
      }
    }
    send({ kind: 'done', seq: session.seq })
    return new Promise(() => {})
  }
}

async function main(init: WorkerInit): Promise<Worker> {
  const url = init.module.startsWith('file:') ? init.module : pathToFileURL(init.module).href
  const mod = await import(url) as { default: Plugin }
  const app = new Context()
  const store = app.plugin(SessionStore)
  await store
  const sessions = app.get('sessions') as SessionStore
  for (const type of init.eventTypes) sessions.registerEventType(type)
  const backend = app.plugin(mod.default, init.config)
  await backend
  const persistence = app.get('sessionPersistence') as SessionPersistence | undefined
  if (!persistence) throw new Error(`worker: ${init.module} did not provide sessionPersistence`)
  return new Worker(store, backend, sessions, persistence)
}

let worker: Promise<Worker> | undefined
process.on('message', (raw: unknown) => {
  const message = raw as WorkerInit | WorkerRequest
  if ('kind' in message && message.kind === 'init') {
    worker = main(message)
    worker.then(() => send({ kind: 'ready', pid: process.pid }), (error: unknown) => {
      send({ kind: 'reply', reqId: 0, ok: false, error: toWire(error) })
      process.exitCode = 1
      process.disconnect?.()
    })
    return
  }
  const request = message as WorkerRequest
  if (!worker) {
    send({ kind: 'reply', reqId: request.reqId, ok: false, error: { name: 'Error', message: 'worker not initialised' } })
    return
  }
  worker.then(w => w.serve(request)).then(
    value => send({ kind: 'reply', reqId: request.reqId, ok: true, value: value ?? null }),
    error => send({ kind: 'reply', reqId: request.reqId, ok: false, error: toWire(error) }),
  )
})
process.on('disconnect', () => process.exit(process.exitCode ?? 0))
