/**
 * The kill chain of P-090/P-091: process k resumes what process k−1 left (or creates the session), writes its
 * script, and is SIGKILLed at a seeded point; the parent then checks the stored log against everything it can know:
 * the verified prefix, the closers `inspect` predicted, the end-seed marker, the regenerated script, and the acks.
 * A last process resumes once more and appends a complete turn.
 */

import { expect } from 'vitest'
import { isDeepStrictEqual } from 'node:util'
import { Session, openTurnClosers, type SessionEvent, type SessionHeader, type SessionId } from '@logbook/session'
import { isSessionPersistenceError, type SessionInspection } from '@logbook/session-persistence'
import { completeTurn } from '../events.ts'
import { expectLossless, plain } from '../expect.ts'
import type { Harness, Mount } from '../harness.ts'
import { createRandom, type Random } from '../random.ts'
import { RemoteError, type WorkerProcess } from '../worker/parent.ts'
import type { CrashPlan, LiveAppend, WorkerNotice } from '../worker/protocol.ts'
import { CRASH_EVENT_TYPES, crashScript, nextTurn, scriptAppends } from './script.ts'

/** Options of one chain. */
export interface ChainOptions {
  readonly mode: 'mixed' | 'big'
  /** Number of SIGKILLs (processes killed); one more process finishes the chain. */
  readonly kills: number
  readonly seed: number
  /** Appends per process before it idles. */
  readonly maxEvents: number
}

const sleep = (ms: number): Promise<void> => new Promise(resolve => setTimeout(resolve, ms))

/** `inspect(id)`, or `undefined` when the session was never materialised. */
export async function inspectOrNone(m: Mount, id: string): Promise<SessionInspection | undefined> {
  try {
    return await m.persistence.inspect(id)
  } catch (error) {
    if (isSessionPersistenceError(error, 'SESSION_NOT_FOUND')) return undefined
    throw error
  }
}

/** Lossless-JSON equality: the JSON texts match, or (other key order) the values are deeply equal. */
function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b) || isDeepStrictEqual(plain(a), plain(b))
}

/** True iff a stored event is the appended `expected` (type, data and options; seq and time are the store's). */
function sameAppend(stored: SessionEvent, expected: LiveAppend): boolean {
  const e = stored as SessionEvent & { surfaceOp?: unknown; sourceEventSeqs?: unknown }
  const opts = expected.opts ?? {}
  return e.type === expected.type && sameJson(e.data, expected.data)
    && sameJson(e.surfaceOp, opts['surfaceOp']) && sameJson(e.sourceEventSeqs, opts['sourceEventSeqs'])
    && sameJson(e.ignorable, opts['ignorable'])
}

/** Fail at the first index where `actual` and `expected` differ (lossless JSON), with a short excerpt. */
function expectSameEvents(actual: readonly unknown[], expected: readonly unknown[], where: string): void {
  expect(actual.length, where).toBe(expected.length)
  for (let i = 0; i < expected.length; i++) {
    if (!sameJson(actual[i], expected[i])) expectLossless(actual[i], expected[i], `${where}: event ${i}`)
  }
}

/** Wait until the seeded kill point of one process is reached (or the script is done, or the child failed). */
async function killPoint(child: WorkerProcess, rng: Random, mode: 'mixed' | 'big', failed: Promise<void>): Promise<string> {
  const policies = mode === 'big' ? ['time', 'batch', 'batch', 'ack'] as const : ['resume', 'time', 'time', 'mark', 'mark', 'ack'] as const
  const policy = rng.pick(policies)
  const nth = rng.int(1, mode === 'big' ? 2 : 3)
  const delay = policy === 'resume' ? rng.int(0, 15) : policy === 'time' ? rng.int(0, mode === 'big' ? 120 : 40) : policy === 'batch' ? rng.int(0, 40) : rng.int(0, 3)
  const counted = (accept: (n: WorkerNotice) => boolean): ((n: WorkerNotice) => boolean) => {
    let seen = 0
    return n => n.kind === 'done' || (accept(n) && ++seen === nth)
  }
  const wait = (predicate: (n: WorkerNotice) => boolean): Promise<unknown> => Promise.race([child.next(predicate), failed])
  switch (policy) {
    case 'resume':
      break
    case 'time':
      await wait(n => n.kind === 'resumed' || n.kind === 'done')
      break
    case 'mark':
      await wait(counted(n => n.kind === 'mark'))
      break
    case 'batch':
      await wait(counted(n => n.kind === 'mark' && n.name === 'batch'))
      break
    case 'ack':
      await wait(counted(n => n.kind === 'ack'))
      break
  }
  await sleep(delay)
  return `${policy}#${nth}+${delay}ms`
}

/** Check the stored log against what is known after process `k`; returns the new verified prefix. */
function verify(stored: readonly SessionEvent[], known: {
  readonly prefix: readonly SessionEvent[]
  readonly closers: readonly SessionEvent[]
  readonly resumed: boolean
  readonly script: readonly LiveAppend[]
  readonly acked: number
  readonly where: string
}): void {
  const { prefix, closers, script, where } = known
  expect(stored.length, `${where}: acknowledged events lost`).toBeGreaterThanOrEqual(known.acked)
  expectSameEvents(stored.slice(0, prefix.length), prefix, `${where}: the previously verified prefix changed`)
  let i = prefix.length
  const closersStored = stored.slice(i, i + closers.length)
  expectSameEvents(closersStored, closers.slice(0, closersStored.length), `${where}: closers differ from inspect's`)
  i += closersStored.length
  if (i >= stored.length) return
  if (known.resumed) {
    expect(closersStored.length, `${where}: events after partial closers`).toBe(closers.length)
    expect(stored[i], `${where}: end-seed marker expected`).toMatchObject({ type: 'session/end-seed', seq: i, data: {} })
    i++
  }
  for (let j = 0; i < stored.length; i++, j++) {
    const expected = script[j]
    if (!expected || !sameAppend(stored[i]!, expected)) {
      expect.fail(`${where}: stored event ${i} ${JSON.stringify(stored[i]).slice(0, 300)} is not script append ${j} ${JSON.stringify(expected).slice(0, 300)}`)
    }
  }
}

/** Run one kill chain on session `crash-<mode>` (see the module comment). */
export async function runCrashChain(h: Harness, options: ChainOptions): Promise<void> {
  const rng = createRandom(options.seed)
  const id = `crash-${options.mode}`
  const m = await h.mount()
  for (const type of CRASH_EVENT_TYPES) m.sessions.registerEventType(type)
  const spawn = (): Promise<WorkerProcess> => h.worker({ eventTypes: CRASH_EVENT_TYPES, config: { writeBatchMaxDelayMs: 5 } })
  const tag = (k: number, extra = ''): string => `seed ${options.seed} process ${k}${extra ? ` (${extra})` : ''}`
  // The next child boots while the parent verifies what the previous one left (booting touches no session).
  let nextChild = spawn()
  let before = await inspectOrNone(m, id)
  for (let k = 0; k <= options.kills; k++) {
    const final = k === options.kills
    const prefix = before ? before.events : []
    const closers = before ? before.closers : []
    expectSameEvents(closers, openTurnClosers(prefix, { kind: 'interrupted' }), tag(k, 'inspect closers'))
    const firstTurn = nextTurn([...prefix, ...closers])
    const plan: CrashPlan & { final: boolean } = {
      id, seed: rng.int(0, 2 ** 31 - 2), mode: options.mode, cwd: '/home/user/crash', maxEvents: options.maxEvents, final,
    }
    const child = await nextChild
    let acked = 0
    child.onNotice(n => {
      if (n.kind === 'ack') acked = Math.max(acked, n.seq)
    })
    let reported: unknown
    const run = child.request({ op: 'crash-run', plan })
    const failed = run.then(() => {}, (error: unknown) => {
      if (error instanceof RemoteError) reported = error
    })
    let point = 'final'
    if (final) {
      await run.catch(() => {})
      await child.close()
    } else {
      point = await killPoint(child, rng, options.mode, failed)
      await child.kill()
      nextChild = spawn()
    }
    await failed
    const where = tag(k, point)
    if (reported) throw new Error(`${where}: the child failed: ${(reported as Error).message}`)
    const after = await inspectOrNone(m, id)
    if (!after) {
      expect(before, `${where}: a stored session disappeared`).toBeUndefined()
      expect(acked, `${where}: acknowledged but absent`).toBe(0)
      continue
    }
    const resumedNotice = child.notices.find(n => n.kind === 'resumed')
    if (resumedNotice && resumedNotice.kind === 'resumed' && before) {
      expectSameEvents(resumedNotice.closers, closers, `${where}: the child appended other closers`)
      expect(resumedNotice.closersFrom, where).toBe(prefix.length)
    }
    const scriptFrom = before ? prefix.length + closers.length + 1 : 0
    const script = final
      ? completeTurn(scriptFrom, firstTurn).map(e => ({ type: e.type, data: e.data, ...('surfaceOp' in e ? { opts: { surfaceOp: 'append' } } : {}) }))
      : scriptAppends(crashScript(plan.seed, options.mode, firstTurn, options.maxEvents))
    verify(after.events, { prefix, closers, resumed: before !== undefined, script, acked, where })
    // With the interrupted closers, core accepts the stored log as a restore seed (inspect's events are deep-frozen).
    const restored = Session.fromRestore(id as SessionId, {
      seed: [...after.events, ...after.closers], header: plain(after.header) as SessionHeader,
      inheritedEventCount: after.inheritedEventCount, eventState: 'shared-frozen',
    })
    expect(restored.seq, where).toBeGreaterThanOrEqual(after.events.length)
    if (final) {
      expect(after.openTurn, where).toBeNull()
      expect(after.tornTail, where).toBeNull()
      expect(after.events.at(-1), where).toMatchObject({ type: 'turn/end', data: { turn: firstTurn, reason: { kind: 'completed' } } })
      expect(after.claim, where).toBe('none')
    }
    before = after
  }
}
