/**
 * Host-level behaviour of the PostgreSQL backend (02 §6b "One writer across hosts"), with real child processes,
 * each with its own pool: racing opens, takeover after a SIGKILL once the lease expired, fencing of a writer that
 * was paused (SIGSTOP) or lost its connection (pg_terminate_backend), and many sessions written by many processes.
 * Lease expiry is driven by an UPDATE of expires_at, never by sleeping.
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { SessionEvent } from '@logbook/session'
import { turn } from './events.ts'
import { createPostgresFixture, destroyPostgresFixture, sql, useTestDatabase, type PostgresFixture } from './fixture.ts'
import { HostProcess } from './host-process.ts'
import { applicationName } from '../src/store.ts'
import { mountPostgres, type Mounted } from './mount.ts'

const database = useTestDatabase()
const OTHER_HOST = 'host-b.invalid'

let fixture: PostgresFixture | undefined
const hosts: HostProcess[] = []
const mounts: Mounted[] = []

afterEach(async () => {
  for (const host of hosts.splice(0)) await host.kill()
  for (const mount of mounts.splice(0)) await mount.stop()
  if (fixture !== undefined) await destroyPostgresFixture(fixture)
  fixture = undefined
})

async function setUp(): Promise<{ config: Record<string, unknown>; mount: Mounted }> {
  fixture = createPostgresFixture(database())
  const mount = await mountPostgres(fixture.config as Record<string, unknown>)
  mounts.push(mount)
  return { config: fixture.config as Record<string, unknown>, mount }
}

async function host(config: Record<string, unknown>, name?: string): Promise<HostProcess> {
  const process_ = await HostProcess.spawn(config, name)
  hosts.push(process_)
  return process_
}

/** Expire the lease of `id` by the server's clock. */
const expireLease = (id: string): Promise<unknown> =>
  sql(fixture!.url, `UPDATE "${fixture!.schema}".logbook_leases SET expires_at = now() - interval '1 second' WHERE session_id = $1`, [id])

/** The stored events of `id` (a read handle of a fresh look). */
async function stored(mount: Mounted, id: string): Promise<readonly SessionEvent[]> {
  return mount.persistence.readFrom(id, 0)
}

/** Turn numbers in stored order, and that seqs are 0…n−1. */
function turnsOf(events: readonly SessionEvent[]): number[] {
  events.forEach((event, index) => expect(event.seq).toBe(index))
  return events.filter(e => e.type === 'turn/start').map(e => (e.data as { turn: number }).turn)
}

describe('one writer across hosts', () => {
  it('P-124 two processes with their own pools race open(write) 100 times: one winner per round; the loser writes nothing', async () => {
    const { config, mount } = await setUp()
    await mount.store('race', turn(0, 1))
    const [a, b] = await Promise.all([host(config), host(config)])
    const wins = { a: 0, b: 0 }
    for (let round = 0; round < 100; round++) {
      const [ra, rb] = await Promise.all([a.ask({ op: 'open', id: 'race' }), b.ask({ op: 'open', id: 'race' })])
      expect([ra.ok, rb.ok].filter(Boolean), `round ${round}`).toHaveLength(1)
      const [winner, loser] = ra.ok ? [a, rb] : [b, ra]
      expect(loser.ok === false && loser.code).toBe('SESSION_LOCKED')
      wins[winner === a ? 'a' : 'b']++
      await winner.call({ op: 'append-turn', id: 'race', turn: round + 2 })
      await winner.call({ op: 'close', id: 'race' })
    }
    expect(wins.a + wins.b).toBe(100)
    const turns = turnsOf(await stored(mount, 'race'))
    expect(turns).toEqual(Array.from({ length: 101 }, (_, i) => i + 1))
  })

  it('P-125 the owner on another host is SIGKILLed: the lease refuses until it expires, then the other host takes over and goes on', async () => {
    const { config, mount } = await setUp()
    await mount.store('k', turn(0, 1))
    const owner = await host(config, OTHER_HOST)
    await owner.call({ op: 'open', id: 'k' })
    await owner.call({ op: 'append-turn', id: 'k', turn: 2 })
    await owner.kill()
    const refused = await mount.persistence.open('k', 'write').then(() => undefined, (error: unknown) => error as { code: string; details: { holder: Record<string, unknown> } })
    expect(refused?.code).toBe('SESSION_LOCKED')
    expect(refused?.details.holder).toMatchObject({ scope: 'process', host: OTHER_HOST, pid: owner.pid, sameHost: false })
    await expireLease('k')
    const handle = await mount.persistence.open('k', 'write')
    expect(handle.nextSeq).toBe(12)
    await handle.append(turn(12, 3))
    await handle.close()
    expect(turnsOf(await stored(mount, 'k'))).toEqual([1, 2, 3])
  })

  for (const fault of ['SIGSTOP', 'pg_terminate_backend'] as const) {
    it(`P-126 fencing: the owner is ${fault === 'SIGSTOP' ? 'paused past its lease (SIGSTOP)' : 'cut off (pg_terminate_backend)'}; another process takes over and appends; the owner's next append is refused; no interleaving`, async () => {
      const { config, mount } = await setUp()
      await mount.store('f', turn(0, 1))
      const owner = await host(config, OTHER_HOST)
      await owner.call({ op: 'open', id: 'f' })
      await owner.call({ op: 'append-turn', id: 'f', turn: 2 })
      if (fault === 'SIGSTOP') owner.signal('SIGSTOP')
      else {
        const killed = await sql<{ killed: boolean }>(fixture!.url, `SELECT pg_terminate_backend(pid) AS killed FROM pg_stat_activity
          WHERE datname = current_database() AND application_name = $1`, [applicationName(owner.pid)])
        expect(killed.length).toBeGreaterThan(0)
      }
      await expireLease('f')
      const taker = await mount.persistence.open('f', 'write')
      expect(taker.nextSeq).toBe(12)
      await taker.append(turn(12, 3))
      if (fault === 'SIGSTOP') owner.signal('SIGCONT')
      const late = await owner.ask({ op: 'append-turn', id: 'f', turn: 4 })
      expect(late.ok).toBe(false)
      expect(late.ok === false && late.code).toBe('SESSION_LOCKED')
      expect(late.ok === false && late.details).toMatchObject({ lost: true })
      await taker.append(turn(18, 5))
      await taker.close()
      expect(turnsOf(await stored(mount, 'f'))).toEqual([1, 2, 3, 5])
    })
  }

  it('P-127 16 sessions written concurrently by 4 processes are all durable and contiguous', async () => {
    const { config, mount } = await setUp()
    const workers = await Promise.all([0, 1, 2, 3].map(() => host(config)))
    const ids = (w: number): string[] => [0, 1, 2, 3].map(s => `w${w}-s${s}`)
    const seqs = await Promise.all(workers.map((worker, w) => worker.call<number[]>({ op: 'write-live', ids: ids(w), turns: 20 })))
    for (const list of seqs) expect(list).toEqual([120, 120, 120, 120])
    for (const worker of workers) await worker.kill()
    for (let w = 0; w < 4; w++) {
      for (const id of ids(w)) expect(turnsOf(await stored(mount, id))).toEqual(Array.from({ length: 20 }, (_, i) => i + 1))
    }
  })
})
