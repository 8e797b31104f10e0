/**
 * The storage operations of one coordinator (spec 02 §1.4, §2.5): a FIFO per session id, so no two backend hooks for
 * one id run at once, and the set of operations still in flight, which teardown step 3 waits for.
 */

/** Per-id FIFO serialisation plus in-flight tracking. */
export class OperationQueue {
  private readonly queues = new Map<string, Promise<void>>()
  private readonly inflight = new Set<Promise<unknown>>()

  /**
   * Run `task` after every earlier task queued for `id` settled — at once when none is queued, so an idle id costs
   * no promise hop (a synchronous throw becomes the rejection) —; it stays in flight until it settles.
   */
  run<T>(id: string, task: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(id)
    const run = previous === undefined ? start(task) : previous.then(task)
    this.inflight.add(run)
    // One reaction both forgets the operation (teardown step 3) and frees the queue slot when nothing followed it.
    // (Inline arrows, not a named inner function: a source loader that keeps function names renames one per call.)
    const settled: Promise<void> = run.then(() => this.forget(id, run, settled), () => this.forget(id, run, settled))
    this.queues.set(id, settled)
    return run
  }

  /** `run` of `id` settled: it is no longer in flight, and the id's slot is free unless a later task took it. */
  private forget(id: string, run: Promise<unknown>, settled: Promise<void>): void {
    this.inflight.delete(run)
    if (this.queues.get(id) === settled) this.queues.delete(id)
  }

  /** Remember `promise` as in flight until it settles, and return it. */
  track<T>(promise: Promise<T>): Promise<T> {
    this.inflight.add(promise)
    const forget = (): void => {
      this.inflight.delete(promise)
    }
    promise.then(forget, forget)
    return promise
  }

  /** Resolves once nothing is in flight, including operations started while it waited; never rejects. */
  async settled(): Promise<void> {
    while (this.inflight.size > 0) await Promise.allSettled([...this.inflight])
  }
}

/** `task()`, with a synchronous throw turned into the returned promise's rejection. */
function start<T>(task: () => Promise<T>): Promise<T> {
  try {
    return task()
  } catch (error) {
    return Promise.reject(error)
  }
}
