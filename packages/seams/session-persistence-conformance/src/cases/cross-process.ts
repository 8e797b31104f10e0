/** Ownership across processes and coordinators (spec 02 §3.2–§3.5) [xp]: P-019 (other-process), P-054–P-060. */

import { randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import { expect, it } from 'vitest'
import { useHarness } from '../harness.ts'
import { completeTurn, completeTurns, header } from '../events.ts'
import { expectLossless, expectUnchanged, rejects, storedState } from '../expect.ts'
import type { ConformanceOptions } from '../types.ts'
import { RemoteError } from '../worker/parent.ts'
import type { LiveAppend } from '../worker/protocol.ts'
import { itUnless } from './it-unless.ts'

const turnAppends = (turn: number, text: string): LiveAppend[] => [
  { type: 'turn/start', data: { turn } },
  { type: 'user/message', data: { id: `u-${turn}`, role: 'user', content: [{ type: 'text', text }], source: { kind: 'user' } }, opts: { surfaceOp: 'append' } },
]

/** Await a child request that must fail with `code`; returns the remote error. */
async function remoteRejects(promise: Promise<unknown>, code: string): Promise<RemoteError> {
  try {
    await promise
  } catch (error) {
    expect(error).toBeInstanceOf(RemoteError)
    expect((error as RemoteError).code, (error as Error).message).toBe(code)
    return error as RemoteError
  }
  return expect.fail(`expected the child to fail with ${code}`)
}

/** Register the `cross-process` cases. */
export function crossProcessCases(options: ConformanceOptions): void {
  const h = useHarness(options)
  const dmg = options.capabilities.damage !== null

  it('P-019 inspect.claim is other-process while a child holds the id', async () => {
    const m = await h.mount()
    await m.store('s1', completeTurn(0, 1))
    const child = await h.worker()
    await child.request({ op: 'open-write', id: 's1' })
    expect((await m.persistence.inspect('s1')).claim).toBe('other-process')
    await child.request({ op: 'close', id: 's1' })
    expect((await m.persistence.inspect('s1')).claim).toBe('none')
  })

  it('P-054 a child holds a write handle: the parent open(write) is SESSION_LOCKED naming the child; reads work; after close the parent opens', async () => {
    const m = await h.mount()
    await m.store('s1', completeTurn(0, 1))
    const child = await h.worker()
    await child.request({ op: 'open-write', id: 's1' })
    const before = await storedState(m, 's1')
    const error = await rejects(m.persistence.open('s1', 'write'), 'SESSION_LOCKED')
    const holder = error.details?.['holder'] as Record<string, unknown>
    expect(holder).toMatchObject({ scope: 'process', pid: child.pid, host: hostname(), sameHost: true })
    expect(typeof holder['ownerId']).toBe('string')
    expect(typeof holder['acquiredAt']).toBe('number')
    await rejects(m.persistence.create(header('s1')), 'SESSION_ALREADY_EXISTS')
    const reader = await m.persistence.open('s1', 'read')
    expectLossless(await reader.read(0), completeTurn(0, 1))
    await reader.close()
    expectLossless(await m.persistence.readFrom('s1', 0), completeTurn(0, 1))
    await expectUnchanged(m, 's1', before)
    await child.request({ op: 'append', id: 's1', events: completeTurn(6, 2) })
    await child.request({ op: 'close', id: 's1' })
    const writer = await m.persistence.open('s1', 'write')
    expect(writer.nextSeq).toBe(12)
    await writer.close()
  })

  it('P-055 a child SIGKILLed while holding the lock: the parent takes it over', async () => {
    const m = await h.mount()
    await m.store('s1', completeTurn(0, 1))
    const child = await h.worker()
    await child.request({ op: 'open-write', id: 's1' })
    await rejects(m.persistence.open('s1', 'write'), 'SESSION_LOCKED')
    await child.kill()
    const writer = await m.persistence.open('s1', 'write')
    await writer.append(completeTurn(6, 2))
    expect((await m.persistence.inspect('s1')).claim).toBe('this-process')
    await writer.close()
    expectLossless(await m.persistence.readFrom('s1', 0), completeTurns(2))
  })

  it('P-056 two coordinators in one process: the second open is SESSION_LOCKED (process scope); a leftover lock of this pid is taken over', async () => {
    const m1 = await h.mount()
    const m2 = await h.mount()
    await m1.store('s1', completeTurn(0, 1))
    const held = await m1.persistence.open('s1', 'write')
    const error = await rejects(m2.persistence.open('s1', 'write'), 'SESSION_LOCKED')
    expect(error.details?.['holder']).toMatchObject({ scope: 'process', pid: process.pid, sameHost: true })
    expect((await m2.persistence.inspect('s1')).claim).toBe('other-process')
    await held.close()
    await (await m2.persistence.open('s1', 'write')).close()
    if (dmg) {
      await m1.store('s2', completeTurn(0, 1))
      await h.damage.writeLockRecord('s2', { ownerId: randomUUID(), pid: process.pid, host: hostname(), processStart: null, acquiredAt: Date.now() })
      const writer = await m2.persistence.open('s2', 'write')
      await writer.append(completeTurn(6, 2))
      await writer.close()
    }
  })

  itUnless(!dmg)('P-057 a holder on another host is never taken over; breakLock with a wrong owner id is SESSION_CONFLICT, with the right one the open succeeds', async () => {
    const m = await h.mount()
    await m.store('s1', completeTurn(0, 1))
    const ownerId = randomUUID()
    await h.damage.writeLockRecord('s1', { ownerId, pid: 1, host: 'elsewhere.invalid', processStart: null, acquiredAt: 1_700_000_000_000 })
    const error = await rejects(m.persistence.open('s1', 'write'), 'SESSION_LOCKED')
    expect(error.details?.['holder']).toMatchObject({ scope: 'process', host: 'elsewhere.invalid', ownerId, sameHost: false })
    await rejects(m.persistence.open('s1', 'write'), 'SESSION_LOCKED')
    await rejects(m.persistence.breakLock('s1', { ownerId: randomUUID(), confirm: 'break-lock' }), 'SESSION_CONFLICT')
    await rejects(m.persistence.breakLock('s1', { ownerId, confirm: 'break' as never }), 'INVALID_ARGUMENT')
    await rejects(m.persistence.open('s1', 'write'), 'SESSION_LOCKED')
    await m.persistence.breakLock('s1', { ownerId, confirm: 'break-lock' })
    await m.persistence.breakLock('s1', { ownerId, confirm: 'break-lock' })
    const writer = await m.persistence.open('s1', 'write')
    await writer.append(completeTurn(6, 2))
    await writer.close()
  })

  it('P-058 8 children × 20 rounds of open, append a turn, close: one holder at a time; the final log is contiguous and every turn complete', async () => {
    const m = await h.mount()
    await m.store('s1', completeTurn(0, 1))
    const children = await Promise.all(Array.from({ length: 8 }, () => h.worker()))
    const results = await Promise.all(children.map(c => c.request<{ turns: number }>({ op: 'rounds', id: 's1', rounds: 20 })))
    expect(results.map(r => r.turns)).toEqual(Array.from({ length: 8 }, () => 20))
    const stored = await m.persistence.readFrom('s1', 0)
    expect(stored).toHaveLength(6 * 161)
    expectLossless(stored, completeTurns(161))
    const inspection = await m.persistence.inspect('s1')
    expect(inspection.openTurn).toBeNull()
    expect(inspection.tornTail).toBeNull()
    expect(inspection.claim).toBe('none')
  })

  it('P-059 two processes create a live session with one new id: one persists, the other flush is SESSION_LOCKED', async () => {
    const m = await h.mount()
    const [a, b] = await Promise.all([h.worker(), h.worker()])
    const outcomes = await Promise.allSettled([
      a.request<{ seq: number }>({ op: 'live-create', id: 'n1', cwd: '/home/user/a', appends: turnAppends(1, 'from a'), flush: true }),
      b.request<{ seq: number }>({ op: 'live-create', id: 'n1', cwd: '/home/user/b', appends: turnAppends(1, 'from b'), flush: true }),
    ])
    const won = outcomes.findIndex(o => o.status === 'fulfilled')
    expect(won).not.toBe(-1)
    const lost = outcomes[1 - won]!
    expect(lost.status).toBe('rejected')
    await remoteRejects(Promise.reject((lost as PromiseRejectedResult).reason), 'SESSION_LOCKED')
    const inspection = await m.persistence.inspect('n1')
    expect(inspection.header.cwd).toBe(won === 0 ? '/home/user/a' : '/home/user/b')
    expect(inspection.events).toHaveLength(2)
    expect((inspection.events[1]!.data as { content: { text: string }[] }).content[0]!.text).toBe(won === 0 ? 'from a' : 'from b')
    // The winner keeps writing; the loser's further flushes keep failing.
    const winner = won === 0 ? a : b
    const loser = won === 0 ? b : a
    await winner.request({ op: 'live-append', id: 'n1', appends: [{ type: 'step/start', data: { turn: 1, step: 1 } }], flush: true })
    await remoteRejects(loser.request({ op: 'live-append', id: 'n1', appends: [{ type: 'step/start', data: { turn: 1, step: 1 } }], flush: true }), 'SESSION_LOCKED')
    expect((await m.persistence.readFrom('n1', 0)).length).toBe(3)
  })

  it('P-060 breakLock under a live writer: its next write is SESSION_LOCKED lost, nothing written', async () => {
    const m = await h.mount()
    const child = await h.worker()
    await child.request({ op: 'live-create', id: 'w1', cwd: '/home/user/w', appends: turnAppends(1, 'hi'), flush: true })
    const error = await rejects(m.persistence.open('w1', 'write'), 'SESSION_LOCKED')
    const ownerId = (error.details?.['holder'] as { ownerId: string }).ownerId
    const before = await storedState(m, 'w1')
    await m.persistence.breakLock('w1', { ownerId, confirm: 'break-lock' })
    const lost = await remoteRejects(child.request({ op: 'live-append', id: 'w1', appends: [{ type: 'step/start', data: { turn: 1, step: 1 } }], flush: true }), 'SESSION_LOCKED')
    expect((lost.details as { lost?: unknown } | undefined)?.lost).toBe(true)
    await expectUnchanged(m, 'w1', before)
    const writer = await m.persistence.open('w1', 'write')
    expect(writer.nextSeq).toBe(2)
    await writer.close()
  })
}
