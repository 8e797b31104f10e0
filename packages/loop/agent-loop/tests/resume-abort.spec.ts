import { describe, expect, it } from 'vitest'
import type { Context } from '@deepseek-ai/cordis'
import MemorySessionPersistence, { type OpenMode, type OperationOptions, type SessionHandle } from '@logbook/session-persistence'
import { boot, OPTIONS, rejection, tick } from './helpers.ts'

/** The memory backend, except that `open(id, 'write')` never answers until the test releases it. */
class HangingOpen extends MemorySessionPersistence {
  static hang = true
  static readonly held: (() => Promise<SessionHandle>)[] = []

  override open(id: string, mode: OpenMode, opts?: OperationOptions): Promise<SessionHandle> {
    if (mode !== 'write' || !HangingOpen.hang) return super.open(id, mode, opts)
    return new Promise<SessionHandle>(resolve => {
      // Released later without the (aborted) signal: a backend that finally answers.
      HangingOpen.held.push(() => super.open(id, mode).then(handle => {
        resolve(handle)
        return handle
      }))
    })
  }
}

/** A stored session `s1` with one turn, in the memory store `store`. */
async function stored(store: string): Promise<void> {
  const { app } = await boot({ memory: store, script: [{ text: 'a', repeat: true }] })
  const agent = await app.agents.create({ sessionId: 's1', options: OPTIONS })
  await agent.send('one')
  await agent.dispose()
}

async function hanging(store: string) {
  HangingOpen.hang = true
  HangingOpen.held.length = 0
  return boot({ persistence: { plugin: HangingOpen, config: { storeName: store } }, script: [{ text: 'b', repeat: true }] })
}

/** Let the held open answer; the resume that gave up on it must close the handle it gets. */
async function releaseLate(): Promise<SessionHandle> {
  HangingOpen.hang = false
  const handle = await HangingOpen.held.shift()!()
  await tick()
  return handle
}

describe('abort during resume (02 §4.3 step 2)', () => {
  it('L-139 the caller\'s signal abandons an open that never returns; the handle that arrives later is closed; the id stays resumable', async () => {
    await stored('hang-caller')
    const { app } = await hanging('hang-caller')
    const controller = new AbortController()
    const resuming = app.agents.resume({ resumeSessionId: 's1', signal: controller.signal })
    await tick()
    expect(HangingOpen.held).toHaveLength(1)
    const reason = new Error('stop waiting')
    controller.abort(reason)
    expect(await rejection(resuming)).toBe(reason)
    const late = await releaseLate()
    expect(await rejection(late.read(0))).toMatchObject({ code: 'SESSION_HANDLE_CLOSED' })
    const agent = await app.agents.resume({ resumeSessionId: 's1' })
    expect((await agent.send('two')).turn).toBe(2)
  })

  it('L-139 disposing the owner fiber abandons the open; the late handle is closed', async () => {
    await stored('hang-owner')
    const { app } = await hanging('hang-owner')
    let resuming!: Promise<unknown>
    const owner = await app.plugin({
      name: 'resume-owner',
      inject: ['agents'],
      apply: (ctx: Context) => {
        resuming = ctx.agents.resume({ resumeSessionId: 's1' })
      },
    })
    await tick()
    await owner.dispose()
    expect(await rejection(resuming)).toMatchObject({ name: 'AbortError', message: 'the owner of this resume was disposed' })
    await releaseLate()
    expect((await app.sessionPersistence.inspect('s1')).claim).toBe('none')
    const agent = await app.agents.resume({ resumeSessionId: 's1' })
    expect(agent.id).toBe('s1')
  })

  it('L-139 unloading the agent loop abandons the open; the late handle is closed', async () => {
    await stored('hang-teardown')
    const { app, agents } = await hanging('hang-teardown')
    const resuming = app.agents.resume({ resumeSessionId: 's1' })
    await tick()
    await agents.dispose()
    expect(await rejection(resuming)).toMatchObject({ name: 'AbortError', message: 'the agent loop was disposed' })
    await releaseLate()
    expect((await app.sessionPersistence.inspect('s1')).claim).toBe('none')
    const handle = await app.sessionPersistence.open('s1', 'write')
    await handle.close()
  })
})
