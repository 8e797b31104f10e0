import { Context } from '@deepseek-ai/cordis'
import * as Compaction from '@logbook/compaction'
import SessionStore from '@logbook/session'
import MemorySessionPersistence, { type SessionPersistence } from '@logbook/session-persistence'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { importClaudeCode, importPi, planStore, storedImports, storePlan, type ImportedSession } from '../src/index.ts'
import { fixture } from './helpers.ts'

const PI = '3f2a9c1e-7b6d-4e5f-9a8b-7c6d5e4f3a2b'

describe('storing imports', () => {
  let ctx: Context
  let persistence: SessionPersistence
  const fibers: { dispose(): unknown }[] = []

  beforeEach(async () => {
    ctx = new Context()
    for (const fiber of [ctx.plugin(SessionStore), ctx.plugin(MemorySessionPersistence), ctx.plugin(Compaction)]) {
      await fiber
      fibers.push(fiber)
    }
    persistence = ctx.get('sessionPersistence') as SessionPersistence
  })

  afterEach(async () => {
    for (const fiber of fibers.splice(0).reverse()) await fiber.dispose()
  })

  const ids = async (): Promise<string[]> => (await persistence.list()).items.map(item => item.id).sort()
  const store = async (sessions: readonly ImportedSession[], force = false) => {
    const stored = await storedImports(persistence)
    const plan = planStore(sessions, stored, { force })
    await storePlan(persistence, plan, stored)
    return plan.map(entry => [entry.session.header.id, entry.action, entry.existingId])
  }

  it('L-188 a first import creates every session; the same import again is skipped; --force replaces it', async () => {
    const { sessions } = await importPi({ path: fixture('pi.jsonl') })
    expect(await store(sessions)).toEqual([[PI, 'create', undefined], [`${PI}-branch-1`, 'create', undefined]])
    expect(await persistence.readFrom(PI, 0)).toEqual(sessions[0]!.events)
    expect(await store(sessions)).toEqual([[PI, 'skip', PI], [`${PI}-branch-1`, 'skip', `${PI}-branch-1`]])
    const before = (await persistence.inspect(PI)).revision
    expect(await store(sessions, true)).toEqual([[PI, 'replace', PI], [`${PI}-branch-1`, 'replace', `${PI}-branch-1`]])
    expect((await persistence.inspect(PI)).revision).not.toBe(before)
    expect(await persistence.readFrom(`${PI}-branch-1`, 0)).toEqual(sessions[1]!.events)
  })

  it('L-188 an import stored under another id is already imported there; an id held by anything else is refused', async () => {
    const { sessions } = await importPi({ path: fixture('pi.jsonl') }, { id: 'mine' })
    await store(sessions)
    const again = await importPi({ path: fixture('pi.jsonl') })
    expect(await store(again.sessions)).toEqual([[PI, 'skip', 'mine'], [`${PI}-branch-1`, 'skip', 'mine-branch-1']])
    const other = await importClaudeCode({ path: fixture('claude-code.jsonl') }, { id: 'mine' })
    const stored = await storedImports(persistence)
    expect(() => planStore(other.sessions, stored, { force: true })).toThrow(
      'session "mine" already exists and is not an import of this source; import under another id with --as <id>')
  })

  it('L-188 an earlier import of the same source with another leaf is refused without --force and replaced with it', async () => {
    const { sessions } = await importPi({ path: fixture('pi.jsonl') })
    const earlier = sessions.map(session => ({ ...session, header: { ...session.header, importedFrom: { ...session.header.importedFrom!, leaf: 'older' } } }))
    await store(earlier)
    const stored = await storedImports(persistence)
    expect(() => planStore(sessions, stored)).toThrow(expect.objectContaining({
      code: 'SESSION_ALREADY_EXISTS',
      message: `session "${PI}" already exists: an earlier import of this source ending at older; replace it with --force or import under another id with --as <id>`,
    }))
    expect(planStore(sessions, stored, { force: true }).map(entry => entry.action)).toEqual(['replace', 'replace'])
  })

  it('L-188 when a later write fails, the sessions this call created are deleted again', async () => {
    const { sessions } = await importPi({ path: fixture('pi.jsonl') })
    const stored = await storedImports(persistence)
    const plan = planStore(sessions, stored)
    // Someone else stores the branch id between the plan and the write.
    const intruder = await persistence.create({ version: sessions[1]!.header.version, id: sessions[1]!.header.id, createdAt: 0 })
    await intruder.append([{ type: 'turn/start', seq: 0, time: 0, data: { turn: 1 } }, { type: 'turn/end', seq: 1, time: 0, data: { turn: 1, reason: { kind: 'completed' } } }])
    await intruder.close()
    await expect(storePlan(persistence, plan, stored)).rejects.toMatchObject({ code: 'SESSION_ALREADY_EXISTS' })
    expect(await ids()).toEqual([`${PI}-branch-1`])
  })
})
