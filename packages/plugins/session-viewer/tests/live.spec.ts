import { EventEmitter } from 'node:events'
import type { ServerResponse } from 'node:http'
import type { SessionHandle, SessionPersistence } from '@logbook/session-persistence'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { LiveHub } from '../src/server/live.ts'
import { SessionCache } from '../src/server/session-cache.ts'
import { startViewer, type ViewerApp } from './app.ts'
import { LogBuilder } from './log.ts'

/** A response that records what is written to it. */
class RecordingResponse extends EventEmitter {
  readonly chunks: string[] = []
  writeHead(): this {
    return this
  }
  write(text: string): boolean {
    this.chunks.push(text)
    return true
  }
  end(): void {
    this.emit('close')
  }
  events(): string[] {
    return this.chunks.flatMap(chunk => [.../^event: (.*)$/gm.exec(chunk) ?? []].slice(1))
  }
}

/** The persistence seam with its reads counted. */
function counting(persistence: SessionPersistence): { persistence: SessionPersistence; reads: () => number } {
  let reads = 0
  const wrapped = new Proxy(persistence, {
    get(target, key, receiver) {
      if (key !== 'open') return Reflect.get(target, key, receiver)
      return async (...args: Parameters<SessionPersistence['open']>): Promise<SessionHandle> => {
        const handle = await target.open(...args)
        return new Proxy(handle, {
          get(inner, name, r) {
            if (name !== 'read') return Reflect.get(inner, name, r)
            return (...a: Parameters<SessionHandle['read']>) => {
              reads++
              return inner.read(...a)
            }
          },
        })
      }
    },
  })
  return { persistence: wrapped, reads: () => reads }
}

describe('following a session [ft]', () => {
  let app: ViewerApp
  beforeAll(async () => {
    app = await startViewer()
  })
  afterAll(() => app.stop())
  afterEach(() => {
    vi.useRealTimers()
  })

  it('L-167 [ft] a page is sent what is new one interval after it is stored; an unchanged store is not read; a closed page stops the reads', async () => {
    const log = new LogBuilder('followed').startTurn('one').reply('a').endTurn()
    await app.store(log.header, log.events)
    const stored = log.events.length
    const { persistence, reads } = counting(app.persistence)
    const cache = new SessionCache(() => persistence, 4)
    const rendered: number[] = []
    const hub = new LiveHub(cache, (view, after) => {
      rendered.push(after)
      return { head: '', log: [], surface: [], nextSeq: view.nextSeq }
    }, 250, () => {})
    await cache.fresh('followed')
    expect(reads()).toBe(1)
    vi.useFakeTimers()
    const response = new RecordingResponse()
    hub.attach('followed', response as unknown as ServerResponse, stored)
    expect(hub.following).toBe(1)
    for (let i = 0; i < 4; i++) {
      await vi.advanceTimersByTimeAsync(250)
      await hub.settled()
    }
    // The JSONL file did not change: its size and mtime were compared, the log was not read again.
    expect(reads()).toBe(1)
    expect(response.events()).toEqual([])
    log.startTurn('two').reply('b', { finish: false })
    // Written while the page waits for its next read (at 1,250 ms of the fake clock).
    const handle = await app.persistence.open('followed', 'write')
    await handle.append(log.events.slice(handle.nextSeq))
    await handle.close()
    await vi.advanceTimersByTimeAsync(249)
    await hub.settled()
    expect(response.events()).toEqual([])
    await vi.advanceTimersByTimeAsync(1)
    await hub.settled()
    expect(response.events()).toEqual(['update'])
    expect(rendered).toEqual([stored])
    expect(reads()).toBe(2)
    response.end()
    expect(hub.following).toBe(0)
    await vi.advanceTimersByTimeAsync(2_000)
    await hub.settled()
    expect(reads()).toBe(2)
    await cache.close()
  })
})
