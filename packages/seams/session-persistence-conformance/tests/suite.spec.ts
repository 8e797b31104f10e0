import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { assertSessionEvent } from '@logbook/session'
import { runSessionPersistenceConformance } from '../src/index.ts'
import { CRASH_EVENT_TYPES, crashScript, nextTurn, scriptAppends } from '../src/crash/script.ts'
import { createRandom, crashIterations, crashSeed } from '../src/random.ts'
import { RemoteError, WorkerProcess } from '../src/worker/parent.ts'

const MEMORY_MODULE = fileURLToPath(new URL('../../session-persistence/src/index.ts', import.meta.url))
const caps = { durableAcrossInstances: true, crossProcess: false, damage: null, killSafe: false, locate: false, tornTail: false } as const
const options = { name: 'x', create: () => { throw new Error('unused') }, destroy: () => {}, capabilities: caps }

describe('seeded randomness', () => {
  it('the same seed gives the same sequence; forks are independent and deterministic', () => {
    const a = createRandom(42)
    const b = createRandom(42)
    const xs = Array.from({ length: 50 }, () => a.next())
    expect(Array.from({ length: 50 }, () => b.next())).toEqual(xs)
    expect(xs.every(x => x >= 0 && x < 1)).toBe(true)
    expect(createRandom(43).next()).not.toBe(xs[0])
    expect(createRandom(7).fork(1).int(0, 1e9)).toBe(createRandom(7).fork(1).int(0, 1e9))
    expect(createRandom(7).fork(1).int(0, 1e9)).not.toBe(createRandom(7).fork(2).int(0, 1e9))
    const r = createRandom(1)
    for (let i = 0; i < 200; i++) expect(r.int(3, 5)).toBeGreaterThanOrEqual(3)
  })

  it('LOGBOOK_CRASH_SEED and LOGBOOK_CRASH_ITERATIONS are parsed strictly; defaults are random and 20', () => {
    expect(crashSeed({ LOGBOOK_CRASH_SEED: '123' })).toBe(123)
    expect(Number.isSafeInteger(crashSeed({}))).toBe(true)
    expect(() => crashSeed({ LOGBOOK_CRASH_SEED: '-1' })).toThrow(TypeError)
    expect(() => crashSeed({ LOGBOOK_CRASH_SEED: 'x' })).toThrow(TypeError)
    expect(crashIterations({})).toBe(20)
    expect(crashIterations({ LOGBOOK_CRASH_ITERATIONS: '3' })).toBe(3)
    expect(() => crashIterations({ LOGBOOK_CRASH_ITERATIONS: '0' })).toThrow(TypeError)
  })
})

describe('crash script', () => {
  it('is a pure function of seed, mode and first turn; its appends are valid events with kill marks', () => {
    for (const mode of ['mixed', 'big'] as const) {
      const one = crashScript(99, mode, 3, 300)
      expect(crashScript(99, mode, 3, 300)).toEqual(one)
      expect(crashScript(100, mode, 3, 300)).not.toEqual(one)
      const appends = scriptAppends(one)
      expect(appends.length).toBeGreaterThanOrEqual(300)
      appends.forEach((a, seq) => {
        const event = { type: a.type, seq, time: 1, data: a.data, ...(a.opts ?? {}) }
        if (!CRASH_EVENT_TYPES.includes(a.type)) assertSessionEvent(event)
      })
      expect(appends[0]).toEqual({ type: 'turn/start', data: { turn: 3 } })
      expect(one.some(s => s.do === 'flush')).toBe(true)
    }
    const marks = crashScript(5, 'mixed', 1, 2000).filter(s => s.do === 'mark').map(s => s.do === 'mark' && s.name)
    expect(new Set(marks)).toEqual(new Set(['tool-gap', 'compaction']))
    expect(nextTurn([{ type: 'turn/start', data: { turn: 4 } }, { type: 'turn/end', data: {} }])).toBe(5)
    expect(nextTurn([])).toBe(1)
  })
})

describe('runSessionPersistenceConformance', () => {
  it('refuses inconsistent capability flags and unknown operations with a TypeError', () => {
    expect(() => runSessionPersistenceConformance({ ...options, capabilities: { ...caps, killSafe: true } })).toThrow(/killSafe requires crossProcess/)
    expect(() => runSessionPersistenceConformance({ ...options, capabilities: { ...caps, crossProcess: true, durableAcrossInstances: false } })).toThrow(/requires durableAcrossInstances/)
    expect(() => runSessionPersistenceConformance({ ...options, capabilities: { ...caps, damage: 'lines' as never } })).toThrow(TypeError)
    expect(() => runSessionPersistenceConformance({ ...options, capabilities: { ...caps, tornTail: undefined as never } })).toThrow(/tornTail must be a boolean/)
    expect(() => runSessionPersistenceConformance({ ...options, only: ['nope' as never] })).toThrow(/unknown operation "nope"/)
    expect(() => runSessionPersistenceConformance({ ...options, name: '' })).toThrow(TypeError)
  })
})

describe('child-process protocol', () => {
  it('a worker mounts a backend module, serves handle and live-session requests, and reports errors with their code', async () => {
    const worker = await WorkerProcess.spawn({ module: MEMORY_MODULE, config: { storeName: 'protocol-test' } })
    try {
      expect(worker.notices).toEqual([{ kind: 'ready', pid: worker.pid }])
      const missing = await worker.request({ op: 'open-write', id: 'missing' }).catch((e: unknown) => e)
      expect(missing).toBeInstanceOf(RemoteError)
      expect((missing as RemoteError).code).toBe('SESSION_NOT_FOUND')
      const created = await worker.request<{ seq: number }>({ op: 'live-create', id: 's1', cwd: '/w', appends: [{ type: 'turn/start', data: { turn: 1 } }], flush: true })
      expect(created).toEqual({ seq: 1 })
      const locked = await worker.request({ op: 'open-write', id: 's1' }).catch((e: unknown) => e)
      expect((locked as RemoteError).code).toBe('SESSION_LOCKED')
      expect((locked as RemoteError).details).toMatchObject({ holder: { scope: 'in-process', kind: 'live-session' } })
      await worker.close()
      expect((await worker.exited).code).toBe(0)
    } finally {
      await worker.kill()
    }
  })

  it('a worker whose module has no persistence plugin fails to spawn with its error', async () => {
    const bad = fileURLToPath(new URL('../src/random.ts', import.meta.url))
    await expect(WorkerProcess.spawn({ module: bad, config: {} })).rejects.toThrow()
  })
})
