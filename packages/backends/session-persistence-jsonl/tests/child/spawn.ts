/** Spawns `child/writer.ts` and talks to it (test helper). */
import { fork, type ChildProcess } from 'node:child_process'
import { createRequire } from 'node:module'
import { fileURLToPath, pathToFileURL } from 'node:url'

const childPath = fileURLToPath(new URL('./writer.ts', import.meta.url))
const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href

/** What a failed request reports. */
export interface ChildError { readonly code?: string; readonly message: string; readonly details?: Record<string, unknown> }

/** One writer child on a store root. */
export class WriterChild {
  private nextId = 1
  private readonly pending = new Map<number, (reply: { ok: boolean; value?: unknown; error?: ChildError }) => void>()
  readonly exited: Promise<void>

  private constructor(readonly process: ChildProcess) {
    process.on('message', (raw) => {
      const reply = raw as { reqId?: number; ok: boolean; value?: unknown; error?: ChildError }
      if (reply.reqId !== undefined) this.pending.get(reply.reqId)?.(reply)
    })
    this.exited = new Promise((resolve) => process.on('exit', () => resolve()))
  }

  /** Starts a child and waits until its plugins are mounted. */
  static async start(root: string): Promise<WriterChild> {
    const child = fork(childPath, [root], { execArgv: ['--conditions=source', '--import', tsx], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] })
    const writer = new WriterChild(child)
    await new Promise<void>((resolve, reject) => {
      child.once('message', () => resolve())
      child.once('exit', (code) => reject(new Error(`writer child exited (${code}) before it was ready`)))
    })
    return writer
  }

  get pid(): number {
    return this.process.pid as number
  }

  /** Sends one request; resolves with `{ ok, value | error }`. */
  request(op: 'open' | 'close', id: string): Promise<{ ok: boolean; value?: unknown; error?: ChildError }>
  request(op: 'append', id: string, events: unknown[]): Promise<{ ok: boolean; value?: unknown; error?: ChildError }>
  request(op: string, id: string, events?: unknown[]): Promise<{ ok: boolean; value?: unknown; error?: ChildError }> {
    const reqId = this.nextId++
    return new Promise((resolve) => {
      this.pending.set(reqId, resolve)
      this.process.send({ reqId, op, id, ...(events === undefined ? {} : { events }) })
    })
  }

  /** SIGKILL, then wait for the exit. */
  async kill(): Promise<void> {
    if (this.process.exitCode === null && this.process.signalCode === null) this.process.kill('SIGKILL')
    await this.exited
  }
}
