/**
 * Parent side of the child-process protocol: fork `child.ts` under `node --conditions=source --import tsx` with an
 * IPC channel, mount the fixture's `worker` spec, send requests, collect notices, kill with SIGKILL.
 */

import { fork, type ChildProcess } from 'node:child_process'
import { createRequire } from 'node:module'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type { WorkerSpec } from '../types.ts'
import type { WireError, WorkerInit, WorkerMessage, WorkerNotice, WorkerRequest } from './protocol.ts'

/** An error a child reported, with the original `code` and `details`. */
export class RemoteError extends Error {
  readonly code: string | undefined
  readonly details: unknown
  constructor(wire: WireError) {
    super(wire.message)
    this.name = `Remote${wire.name}`
    this.code = wire.code
    this.details = wire.details
  }
}

type Request = WorkerRequest extends infer R ? R extends unknown ? Omit<R, 'reqId'> : never : never

// Run from sources (`.ts`) or from a build (`.js`): the child entry sits beside this module either way.
const childPath = fileURLToPath(new URL(import.meta.url.endsWith('.ts') ? './child.ts' : './child.js', import.meta.url))
const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href

/** A running conformance child; every instance must end with `kill()` or `close()`. */
export class WorkerProcess {
  readonly notices: WorkerNotice[] = []
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: unknown) => void }>()
  private readonly listeners = new Set<(notice: WorkerNotice) => void>()
  private nextReqId = 1
  private stderr = ''
  private exit: { code: number | null; signal: NodeJS.Signals | null } | undefined

  private constructor(private readonly child: ChildProcess, private readonly spec: WorkerSpec) {
    child.stderr?.setEncoding('utf8')
    child.stderr?.on('data', (chunk: string) => {
      this.stderr = (this.stderr + chunk).slice(-8192)
    })
    child.on('message', (raw: unknown) => this.receive(raw as WorkerMessage))
    this.exited = new Promise(resolve => {
      child.on('exit', (code, signal) => {
        this.exit = { code, signal }
        const error = new Error(`conformance worker ${child.pid} exited (${signal ?? code}) with requests pending; stderr:\n${this.stderr}`)
        for (const { reject } of this.pending.values()) reject(error)
        this.pending.clear()
        resolve(this.exit)
      })
    })
  }

  /** Fork a child mounting `spec` (plus `eventTypes`), resolving once it reported `ready`. */
  static async spawn(spec: WorkerSpec, options: { readonly eventTypes?: readonly string[]; readonly config?: Readonly<Record<string, unknown>> } = {}): Promise<WorkerProcess> {
    const child = fork(childPath, [], {
      execArgv: ['--conditions=source', '--import', tsxLoader],
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      serialization: 'json',
    })
    const worker = new WorkerProcess(child, spec)
    const init: WorkerInit = {
      kind: 'init', module: spec.module, config: { ...spec.config, ...options.config }, eventTypes: options.eventTypes ?? [],
    }
    const ready = worker.next(n => n.kind === 'ready')
    const failed = new Promise<never>((_, reject) => {
      worker.pending.set(0, { resolve: () => {}, reject })
    })
    child.send(init)
    try {
      await Promise.race([ready, failed])
    } catch (error) {
      await worker.kill()
      throw error
    }
    worker.pending.delete(0)
    return worker
  }

  /** The child's pid. */
  get pid(): number {
    return this.child.pid!
  }

  /** Send a request; resolves with the child's value or rejects with a `RemoteError`. */
  request<T = unknown>(request: Request): Promise<T> {
    const reqId = this.nextReqId++
    return new Promise<T>((resolve, reject) => {
      if (this.exit) {
        reject(new Error(`conformance worker ${this.child.pid} already exited; stderr:\n${this.stderr}`))
        return
      }
      this.pending.set(reqId, { resolve: resolve as (v: unknown) => void, reject })
      this.child.send({ ...request, reqId })
    })
  }

  /** Call `listener` for every later notice; returns the unsubscriber. */
  onNotice(listener: (notice: WorkerNotice) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /** Resolve with the first notice (already received or later) matching `predicate`; rejects if the child exits. */
  next(predicate: (notice: WorkerNotice) => boolean): Promise<WorkerNotice> {
    const seen = this.notices.find(predicate)
    if (seen) return Promise.resolve(seen)
    return new Promise((resolve, reject) => {
      const off = this.onNotice(notice => {
        if (!predicate(notice)) return
        off()
        resolve(notice)
      })
      void this.exited.then(() => {
        off()
        reject(new Error(`conformance worker ${this.child.pid} exited before the awaited notice; stderr:\n${this.stderr}`))
      })
    })
  }

  /** SIGKILL the child, wait for its exit and for the store to settle what it left in flight (no-op once exited). */
  async kill(): Promise<void> {
    if (this.exit) return
    this.child.kill('SIGKILL')
    await this.exited
    await this.spec.settle?.(this.child.pid!)
  }

  /** Ask the child to dispose its app, then let it exit; kills it if that fails. */
  async close(): Promise<void> {
    if (this.exit) return
    try {
      await this.request({ op: 'dispose' })
      this.child.disconnect()
      await this.exited
    } catch {
      // A child that cannot dispose cleanly is killed instead; the test that cares asserted on its replies already.
      await this.kill()
    }
  }

  /** The last 8 KiB the child wrote to stderr (for failure messages). */
  get errorOutput(): string {
    return this.stderr
  }

  private receive(message: WorkerMessage): void {
    if (message.kind === 'reply') {
      const waiter = this.pending.get(message.reqId)
      if (!waiter) return
      this.pending.delete(message.reqId)
      if (message.ok) waiter.resolve(message.value)
      else waiter.reject(new RemoteError(message.error))
      return
    }
    this.notices.push(message)
    for (const listener of [...this.listeners]) listener(message)
  }
}
