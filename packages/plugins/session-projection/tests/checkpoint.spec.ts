import type { Context } from '@deepseek-ai/cordis'
import type { SessionEvent } from '@logbook/session'
import MemorySessionPersistence, { type OperationOptions, type ProjectionCheckpoint } from '@logbook/session-persistence'
import { describe, expect, it } from 'vitest'
import { makeApp, mark, nextCheckpoint, settle, sid, turn, unitM } from './helpers.ts'

type Step = { what: 'committed'; toSeq: number } | { what: 'write'; seq: number; rows: string[] } | { what: 'written' }

/** A write script: each call to `writeProjectionCheckpoint` goes through `hook`, which may delay or fail it. */
interface Script {
  steps: Step[]
  writes: ProjectionCheckpoint[]
  active: number
  maxActive: number
  hook?: (call: number) => Promise<void>
}

/** The memory backend with `writeProjectionCheckpoint` instrumented by `script` (an ordinary plugin). */
function scripted(script: Script) {
  return class ScriptedPersistence extends MemorySessionPersistence {
    override async writeProjectionCheckpoint(id: string, cp: ProjectionCheckpoint, opts?: OperationOptions): Promise<void> {
      script.writes.push(cp)
      script.steps.push({ what: 'write', seq: cp.seq, rows: Object.keys(cp.rows) })
      script.active += 1
      script.maxActive = Math.max(script.maxActive, script.active)
      try {
        await script.hook?.(script.writes.length)
        await super.writeProjectionCheckpoint(id, cp, opts)
        script.steps.push({ what: 'written' })
      } finally {
        script.active -= 1
      }
    }
  }
}

function newScript(): Script {
  return { steps: [], writes: [], active: 0, maxActive: 0 }
}

async function appWith(script: Script, config: Parameters<typeof makeApp>[0] = {}): Promise<{ app: Context; logs: string[] }> {
  return makeApp(config, async root => {
    await root.plugin(scripted(script), { writeBatchMaxDelayMs: 60_000 })
    root.on('persistence/committed', e => {
      script.steps.push({ what: 'committed', toSeq: e.toSeq })
    })
  })
}

/** A latch: `wait` resolves once `open` was called. */
function latch(): { wait: Promise<void>; open: () => void } {
  let open!: () => void
  const wait = new Promise<void>(resolve => {
    open = resolve
  })
  return { wait, open }
}

describe('projection checkpoints of live sessions (03 §1.4)', () => {
  it('L-017 turn/end → the flush completes before writeProjectionCheckpoint; seq = last seq at capture; faulted units absent', async () => {
    const script = newScript()
    const { app } = await appWith(script)
    app.sessionProjections.register({ ...unitM('test/bad'), apply: () => { throw new Error('bad unit') } })
    app.sessionProjections.register(unitM())
    const s = app.sessions.create(sid('s'))
    const written = nextCheckpoint(app)
    turn(s, 1)
    const last = mark(s) // appended in the same tick: the asynchronous capture includes it
    const event = await written
    expect(event).toEqual({ sessionId: 's', seq: last.seq, anchor: { time: last.time, type: 'test/mark' }, keys: ['stats', 'todos', 'title', 'test/m'] })
    expect(script.steps).toEqual([
      { what: 'committed', toSeq: last.seq + 1 },
      { what: 'write', seq: last.seq, rows: ['stats', 'todos', 'title', 'test/m'] },
      { what: 'written' },
    ])
    const stored = await app.sessionPersistence.readProjectionCheckpoint('s')
    expect(stored).toMatchObject({ sessionId: 's', seq: last.seq, anchor: { time: last.time, type: 'test/mark' } })
    expect(stored!.rows['test/m']).toEqual({ stateVersion: 1, state: 1 })
    expect(stored!.rows.stats).toEqual({ stateVersion: 1, state: app.sessionProjections.stateOf(s, 'stats') })
    expect(stored!.rows['test/bad']).toBeUndefined()
  })

  it('L-018 everyEvents 3 without turn/end: no write after 2 state-changing events, one write after the 3rd', async () => {
    const script = newScript()
    const { app } = await appWith(script, { builtins: { stats: false, todos: false, title: false }, checkpoint: { everyEvents: 3 } })
    app.sessionProjections.register(unitM())
    const s = app.sessions.create(sid('s'))
    mark(s)
    s.append('request/context', { provider: 'p', model: 'm' }) // changes no state: not counted
    await settle()
    mark(s)
    await settle()
    expect(script.writes).toHaveLength(0)
    const written = nextCheckpoint(app)
    const third = mark(s)
    await written
    await settle()
    expect(script.writes.map(cp => cp.seq)).toEqual([third.seq])
    mark(s)
    mark(s)
    await settle()
    expect(script.writes).toHaveLength(1)
  })

  it('L-019 a checkpoint whose seq is not below the durable cursor → CHECKPOINT_AHEAD (02 §1.6)', async () => {
    const script = newScript()
    const { app } = await appWith(script, { checkpoint: { enabled: false } })
    app.sessionProjections.register(unitM())
    const s = app.sessions.create(sid('s'))
    turn(s, 1)
    await settle() // the live writer holds its lock: only the cursor can refuse the write now
    const cp = app.sessionProjections.checkpoint(s)!
    expect(cp.seq).toBe(s.seq - 1)
    await expect(app.sessionPersistence.writeProjectionCheckpoint('s', cp)).rejects.toMatchObject({ code: 'CHECKPOINT_AHEAD' })
    await app.sessions.flush(s)
    await app.sessionPersistence.writeProjectionCheckpoint('s', cp)
    expect((await app.sessionPersistence.readProjectionCheckpoint('s'))?.seq).toBe(cp.seq)
    expect(script.writes).toHaveLength(2) // both were ours: nothing was written automatically
  })

  it('L-020 a rejected checkpoint write only warns; the session continues and the next turn/end writes', async () => {
    const script = newScript()
    script.hook = async call => {
      if (call === 1) throw new Error('disk full')
    }
    const { app, logs } = await appWith(script)
    const s = app.sessions.create(sid('s'))
    turn(s, 1)
    const failedSeq = s.seq - 1
    await settle()
    await settle()
    expect(logs.filter(l => l.includes('checkpoint'))).toEqual([
      expect.stringContaining(`projection checkpoint of session s at seq ${failedSeq} failed: disk full`),
    ])
    const written = nextCheckpoint(app)
    turn(s, 2)
    expect((await written).seq).toBe(s.seq - 1)
    expect(script.writes.map(cp => cp.seq)).toEqual([failedSeq, s.seq - 1])
  })

  it('L-021 three triggers during one in-flight write → exactly one further write, with a fresh capture', async () => {
    const script = newScript()
    const gate = latch()
    const entered = latch()
    script.hook = async call => {
      if (call === 1) {
        entered.open()
        await gate.wait
      }
    }
    const { app } = await appWith(script)
    const s = app.sessions.create(sid('s'))
    turn(s, 1)
    await entered.wait
    turn(s, 2)
    await settle()
    turn(s, 3)
    await settle()
    turn(s, 4)
    await settle()
    const written: number[] = []
    app.on('projection/checkpointed', e => {
      written.push(e.seq)
    })
    gate.open()
    await vi_waitFor(() => written.length === 2)
    await settle()
    expect(script.writes.map(cp => cp.seq)).toEqual([written[0], s.seq - 1])
    expect(script.maxActive).toBe(1)
  })

  it('every checkpoint written is below the durable cursor of its time and anchors the live event at its seq', async () => {
    const { app } = await makeApp({ checkpoint: { everyEvents: 2 } }, async root => {
      await root.plugin(MemorySessionPersistence, {})
    })
    app.sessionProjections.register(unitM())
    let cursor = 0
    app.on('persistence/committed', e => {
      cursor = e.toSeq
    })
    const seen: { seq: number; cursor: number; anchor: { time: number; type: string } }[] = []
    app.on('projection/checkpointed', e => {
      seen.push({ seq: e.seq, cursor, anchor: e.anchor })
    })
    const s = app.sessions.create(sid('s'))
    for (let n = 1; n <= 4; n++) {
      const written = nextCheckpoint(app)
      turn(s, n, [`c${n}`])
      mark(s)
      await written
    }
    await settle()
    expect(seen.length).toBeGreaterThanOrEqual(4)
    for (const { seq, cursor: durable, anchor } of seen) {
      expect(seq).toBeLessThan(durable)
      expect(anchor).toEqual({ time: s.events[seq]!.time, type: s.events[seq]!.type })
    }
    expect((await app.sessionPersistence.readProjectionCheckpoint('s'))?.seq).toBe(seen.at(-1)!.seq)
  })

  it('no persistence, or checkpoint.enabled false → nothing is written and nothing is logged', async () => {
    const bare = await makeApp()
    const s = bare.app.sessions.create(sid('s'))
    turn(s, 1)
    await settle()
    expect(bare.logs).toEqual([])
    expect(bare.app.sessionProjections.checkpoint(s)).toMatchObject({ sessionId: 's', seq: s.seq - 1, anchor: { type: 'turn/end' } })
    const empty = bare.app.sessions.create(sid('empty'))
    expect(bare.app.sessionProjections.checkpoint(empty)).toBeUndefined()

    const script = newScript()
    const off = await appWith(script, { checkpoint: { enabled: false } })
    turn(off.app.sessions.create(sid('s')), 1)
    await settle()
    await settle()
    expect(script.writes).toEqual([])
  })

  it('a non-JSON state is left out of the capture with a warning', async () => {
    const { app, logs } = await makeApp({ builtins: { stats: false, todos: false, title: false } })
    app.sessionProjections.register({ ...unitM('test/date'), init: () => new Date(0) as unknown as number, apply: n => n })
    app.sessionProjections.register(unitM())
    const s = app.sessions.create(sid('s'))
    mark(s)
    const cp = app.sessionProjections.checkpoint(s)!
    expect(Object.keys(cp.rows)).toEqual(['test/m'])
    expect(logs.join('\n')).toContain('projection test/date of session s: state is not lossless JSON; left out of the checkpoint')
  })

  it('a session no longer live when its write fails gives no warning', async () => {
    const script = newScript()
    const gate = latch()
    script.hook = async () => {
      await gate.wait
      throw new Error('late failure')
    }
    const { app, logs } = await appWith(script)
    const s = app.sessions.prepare(sid('s'))
    const detach = app.sessions.enter(s)
    app.sessions.announce(s)
    turn(s, 1)
    await vi_waitFor(() => script.writes.length === 1)
    detach()
    expect(app.sessions.get(sid('s'))).toBeUndefined()
    gate.open()
    await settle()
    await settle()
    expect(logs.filter(l => l.includes('late failure'))).toEqual([])
  })
})

/** Poll `check` on macrotask ticks (no timing assertion: the bound only stops a broken test). */
async function vi_waitFor(check: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !check(); i++) await settle()
  expect(check()).toBe(true)
}

export type { SessionEvent }
