import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { SESSION_FORMAT_VERSION, SessionId, type SessionEvent } from '@logbook/session'
import { hex8, recordChecksum } from '@logbook/session-persistence'
import JsonlSessionPersistence from '@logbook/session-persistence-jsonl'
import { boot, deferred, OPTIONS, ofType, rejection, shape, tool, type BootOptions } from './helpers.ts'

const dirs: string[] = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

function tempRoot(): string {
  const dir = mkdtempSync(join(tmpdir(), 'logbook-loop-'))
  dirs.push(dir)
  return dir
}

/**
 * Boot with `store` (the memory backend or another persistence plugin), start a turn whose `deploy` tool never
 * returns, flush what the turn wrote, and let the process "die": its persistence goes away without the turn being
 * closed. Returns the stored seq count and where the backend keeps the log (`locate`, asked before the process died).
 */
async function crashInTool(store: Pick<BootOptions, 'memory' | 'persistence'>): Promise<{ storedCount: number; location: string | undefined }> {
  const started = deferred()
  const first = await boot({
    ...store,
    script: [{ toolCalls: [{ id: 'c1', name: 'deploy', arguments: {} }] }],
    tools: [tool('deploy', { execute: () => {
      started.resolve()
      return new Promise(() => {})
    } })],
  })
  const crashed = await first.app.agents.create({ sessionId: 's1', options: OPTIONS })
  void crashed.send('deploy it')
  await started.promise
  await first.app.sessions.flush(crashed.session)
  const storedCount = crashed.session.seq
  const location = await first.app.sessionPersistence.locate('s1')
  await first.persistence!.dispose()
  return { storedCount, location }
}

describe('resume', () => {
  it('L-104 resume without persistence → PERSISTENCE_NOT_CONFIGURED with 02 §4.3\'s exact message', async () => {
    const { app } = await boot({ script: [] })
    expect(await rejection(app.agents.resume({ resumeSessionId: 's1' }))).toMatchObject({
      name: 'AgentError',
      code: 'PERSISTENCE_NOT_CONFIGURED',
      message: 'cannot resume: session persistence is not configured (load a session-persistence backend)',
    })
  })

  it('L-104 a session another writer holds → SESSION_LOCKED from the first open(id, "write")', async () => {
    const root = tempRoot()
    const jsonl = { plugin: JsonlSessionPersistence, config: { root, durability: 'none' } }
    const writer = await boot({ script: [{ text: 'a', repeat: true }], persistence: jsonl })
    const agent = await writer.app.agents.create({ sessionId: 'shared', options: OPTIONS })
    await agent.send('hi')
    await writer.app.sessions.flush(agent.session)
    const other = await boot({ script: [], persistence: jsonl })
    const error = await rejection(other.app.agents.resume({ resumeSessionId: 'shared' }))
    expect(error).toMatchObject({ code: 'SESSION_LOCKED' })
    expect((error as { details?: { holder?: { scope?: string } } }).details?.holder?.scope).toBe('process')
    // The same process: the live session's claim refuses a resume before anything is read.
    expect(await rejection(writer.app.agents.resume({ resumeSessionId: 'shared' }))).toMatchObject({ code: 'SESSION_LOCKED' })
    await agent.dispose()
  })

  it('L-105 crash during a tool, resume → closers with TOOL_OUTCOME_UNKNOWN; turn numbers continue; first header resume', async () => {
    const { storedCount } = await crashInTool({ memory: 'l105' })

    const second = await boot({ memory: 'l105', script: [{ text: 'it was interrupted' }] })
    const agent = await second.app.agents.resume({ resumeSessionId: 's1' })
    const s = agent.session
    expect(shape(s.events, storedCount)).toEqual(['tool/result', 'step/end', 'turn/end', 'session/end-seed'])
    const closer = s.events[storedCount] as SessionEvent<'tool/result'>
    expect(closer.data.error).toEqual({ name: 'ToolOutcomeUnknownError', code: 'TOOL_OUTCOME_UNKNOWN' })
    expect(closer.sourceEventSeqs).toEqual([ofType(s, 'tool/call')[0]!.seq])
    expect(s.events[storedCount + 2]!.data).toEqual({ turn: 1, reason: { kind: 'interrupted' } })
    expect(agent.options).toEqual({ provider: 'scripted', model: 'm1', tools: ['deploy'] })

    const result = await agent.send('what happened?')
    expect(result.turn).toBe(2)
    expect(ofType(s, 'request/header').map(h => h.data.reason)).toEqual(['initial', 'resume'])
    expect(ofType(s, 'request/context')).toHaveLength(1)
    await agent.dispose()
    expect(JSON.stringify(await second.app.sessionPersistence.readFrom('s1', 0))).toBe(JSON.stringify(s.events))
  })

  describe('L-194 a stored log that is not a valid session is refused before anything is appended', () => {
    /** A JSONL store holding `s1` with its last turn open inside a running tool; returns the root and the file. */
    async function crashedInTool(): Promise<{ root: string; file: string }> {
      const root = tempRoot()
      const { location } = await crashInTool({ persistence: { plugin: JsonlSessionPersistence, config: { root, durability: 'none', packChunks: false } } })
      return { root, file: location! }
    }

    /** Rewrite the first stored event of `type` with `edit`, its line's checksum kept matching (a writer's bug). */
    function editEvent(file: string, type: string, edit: (event: Record<string, unknown>) => void): void {
      const lines = readFileSync(file, 'utf8').split('\n')
      const index = lines.findIndex(line => line.includes(`{"type":"${type}"`))
      const event = JSON.parse(lines[index]!.slice(9)) as Record<string, unknown>
      edit(event)
      const text = JSON.stringify(event)
      lines[index] = `${hex8(recordChecksum(text))} ${text}`
      writeFileSync(file, lines.join('\n'))
    }

    const cases: [string, string, (event: Record<string, unknown>) => void, RegExp][] = [
      ['a user message with role "usex"', 'user/message', (e) => { (e.data as Record<string, unknown>).role = 'usex' }, /seq 1\b|index 1\b/],
      ['a tool/call whose call id was not requested', 'tool/call', (e) => { (e.data as Record<string, unknown>).callId = 'c9' }, /tool\/call c9 was not requested/],
      ['a request/header with a flipped key', 'request/header', (e) => {
        const data = e.data as { header: Record<string, unknown> }
        data.header.confih = data.header.config
        delete data.header.config
      }, /request\/header/],
    ]
    for (const [name, type, edit, detail] of cases) {
      it(`L-194 ${name}: SESSION_CORRUPT naming the record, the file byte for byte unchanged, the id released`, async () => {
        const { root, file } = await crashedInTool()
        editEvent(file, type, edit)
        const before = readFileSync(file)
        const second = await boot({ persistence: { plugin: JsonlSessionPersistence, config: { root, durability: 'none' } }, script: [] })
        const error = await rejection(second.app.agents.resume({ resumeSessionId: 's1' }))
        expect(error).toMatchObject({ name: 'SessionPersistenceCorruptionError', code: 'SESSION_CORRUPT' })
        expect(error.message).toMatch(detail)
        expect(typeof (error as { seq?: unknown }).seq).toBe('number')
        expect(readFileSync(file).equals(before)).toBe(true)
        expect((await second.app.sessionPersistence.inspect('s1')).claim).toBe('none')
      })
    }
  })

  it('a resume with given options keeps them; without any header and options → INVALID_OPTIONS, and the id stays resumable', async () => {
    const { app } = await boot({ memory: 'opts', script: [{ text: 'a', repeat: true }] })
    const handle = await app.sessionPersistence.create({ version: SESSION_FORMAT_VERSION, id: SessionId('bare'), createdAt: 1 })
    await handle.append([{ type: 'turn/start', seq: 0, time: 1, data: { turn: 1 } }])
    await handle.close()
    expect(await rejection(app.agents.resume({ resumeSessionId: 'bare' }))).toMatchObject({
      code: 'INVALID_OPTIONS', message: 'invalid agent options: provider and model are required (no request/header is logged to take them from)',
    })
    expect(await rejection(app.agents.resume({ resumeSessionId: 'bare', options: { model: '' } }))).toMatchObject({
      code: 'INVALID_OPTIONS', message: 'invalid agent options: model must be a non-empty string',
    })
    // Refused options leave no residue: the open turn is still open in storage, the lock is released.
    expect((await app.sessionPersistence.inspect('bare')).events).toHaveLength(1)
    expect((await app.sessionPersistence.inspect('bare')).claim).toBe('none')
    const agent = await app.agents.resume({ resumeSessionId: 'bare', options: OPTIONS })
    expect(agent.options).toEqual(OPTIONS)
    expect(shape(agent.session.events)).toEqual(['turn/start', 'turn/end', 'session/end-seed'])
    expect((await agent.send('x')).turn).toBe(2)
  })

  it('a stored log core rejects → SESSION_CORRUPT with the core error as cause; the lock is released', async () => {
    const { app } = await boot({ memory: 'corrupt', script: [] })
    const handle = await app.sessionPersistence.create({ version: SESSION_FORMAT_VERSION, id: SessionId('bad'), createdAt: 1 })
    await handle.append([{
      type: 'user/message', seq: 0, time: 1, surfaceOp: { op: 'replace', start: 5, end: 5 },
      data: { id: 'u', role: 'user', source: { kind: 'user' }, content: [{ type: 'text', text: 'x' }] },
    } as unknown as SessionEvent])
    await handle.close()
    const error = await rejection(app.agents.resume({ resumeSessionId: 'bad', options: OPTIONS }))
    expect(error).toMatchObject({ name: 'SessionPersistenceCorruptionError', code: 'SESSION_CORRUPT' })
    expect(error.cause).toMatchObject({ code: 'INVALID_SURFACE' })
    expect((await app.sessionPersistence.inspect('bad')).claim).toBe('none')
  })

  it('P-066 a resume aborted after open → rejects with the reason; handle closed, lock released, id resumable', async () => {
    const { app } = await boot({ memory: 'abort-mid', script: [{ text: 'a', repeat: true }] })
    const agent = await app.agents.create({ sessionId: 's1', options: OPTIONS })
    await agent.send('hi')
    await agent.dispose()
    const controller = new AbortController()
    const reason = new Error('changed my mind')
    const off = app.on('persistence/claimed', event => {
      if (event.kind === 'handle') controller.abort(reason)
    })
    expect(await rejection(app.agents.resume({ resumeSessionId: 's1', signal: controller.signal }))).toBe(reason)
    off()
    expect((await app.sessionPersistence.inspect('s1')).claim).toBe('none')
    expect(app.sessions.get(agent.id)).toBeUndefined()
    const resumed = await app.agents.resume({ resumeSessionId: 's1' })
    expect((await resumed.send('again')).turn).toBe(2)
  })

  it('a pre-aborted signal rejects with its reason before anything is opened', async () => {
    const { app } = await boot({ memory: 'abort', script: [] })
    const controller = new AbortController()
    const reason = new Error('stop')
    controller.abort(reason)
    expect(await rejection(app.agents.resume({ resumeSessionId: 'x', signal: controller.signal }))).toBe(reason)
  })
})
