/** Parent side of `host-worker.ts`: fork it, send requests, SIGKILL / SIGSTOP / SIGCONT it, reap it. */
import { fork, type ChildProcess } from 'node:child_process'
import { createRequire } from 'node:module'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type { HostRequest } from './host-worker.ts'

const workerPath = fileURLToPath(new URL('./host-worker.ts', import.meta.url))
const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href

/** A reply that failed: the child's error code and message. */
export interface HostFailure { readonly ok: false; readonly code?: string; readonly message: string; readonly details?: unknown }
type Reply = { readonly ok: true; readonly value: unknown } | HostFailure

/** One running host process. */
export class HostProcess {
  private nextId = 1
  private readonly pending = new Map<number, (reply: Reply) => void>()
  private stderr = ''

  private constructor(readonly child: ChildProcess) {
    child.stderr?.setEncoding('utf8')
    child.stderr?.on('data', (chunk: string) => {
      this.stderr = (this.stderr + chunk).slice(-4096)
    })
    child.on('message', (raw: { reqId?: number } & Reply) => {
      if (raw.reqId === undefined) return
      this.pending.get(raw.reqId)?.(raw)
      this.pending.delete(raw.reqId)
    })
    child.on('exit', () => {
      for (const settle of this.pending.values()) settle({ ok: false, message: `host process exited; stderr: ${this.stderr}` })
      this.pending.clear()
    })
  }

  /** Fork a host mounting `config`; `host` makes it report that host name. */
  static spawn(config: Record<string, unknown>, host?: string): Promise<HostProcess> {
    const child = fork(workerPath, [], {
      execArgv: ['--conditions=source', '--import', tsxLoader],
      env: { ...process.env, LOGBOOK_PG_WORKER_CONFIG: JSON.stringify(config), LOGBOOK_PG_WORKER_HOST: host ?? '' },
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    })
    const host_ = new HostProcess(child)
    return new Promise((resolve, reject) => {
      child.once('message', () => resolve(host_))
      child.once('exit', code => reject(new Error(`host process exited (${code}) before ready: ${host_.stderr}`)))
    })
  }

  get pid(): number {
    return this.child.pid!
  }

  /** Send `request`; resolves with the reply (failures included, never rejects). */
  ask(request: HostRequest): Promise<Reply> {
    const reqId = this.nextId++
    return new Promise((resolve) => {
      this.pending.set(reqId, resolve)
      this.child.send({ reqId, request })
    })
  }

  /** Send `request` and return its value. @throws Error with the child's code when it failed. */
  async call<T = unknown>(request: HostRequest): Promise<T> {
    const reply = await this.ask(request)
    if (!reply.ok) throw Object.assign(new Error(reply.message), { code: reply.code, details: reply.details })
    return reply.value as T
  }

  /** Send a signal (SIGSTOP, SIGCONT). */
  signal(signal: NodeJS.Signals): void {
    this.child.kill(signal)
  }

  /** SIGKILL and wait for the exit. */
  async kill(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return
    const exited = new Promise(resolve => this.child.once('exit', resolve))
    this.child.kill('SIGKILL')
    await exited
  }
}
