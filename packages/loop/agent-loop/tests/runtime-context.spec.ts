import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { Context } from '@deepseek-ai/cordis'
import type { Message, Session, SessionEvent } from '@logbook/session'
import { retainedRuntimeContext } from '../src/index.ts'
import { boot, OPTIONS, ofType, shape, tool } from './helpers.ts'

const ENABLED = { runtimeContext: { enabled: true, instructionFiles: ['AGENTS.md'], sections: {} } }

let cwd: string
beforeEach(() => {
  cwd = mkdtempSync(join(tmpdir(), 'logbook-context-'))
  writeFileSync(join(cwd, 'AGENTS.md'), 'Run the tests before committing.\n')
  vi.useFakeTimers({ toFake: ['Date'] })
  vi.setSystemTime(new Date(2026, 11, 1, 12, 0, 0))
})
afterEach(() => {
  vi.useRealTimers()
  rmSync(cwd, { recursive: true, force: true })
})

function contextText(sections: string): string {
  return `<runtime-context>\n${sections}\n</runtime-context>`
}

function defaultText(dir: string, instructions = 'Run the tests before committing.'): string {
  return contextText(`<instructions>\n<file path="AGENTS.md">\n${instructions}\n</file>\n</instructions>\n<cwd>\n${dir}\n</cwd>\n<date>\n2026-12-01\n</date>`)
}

function contexts(session: Session): SessionEvent<'user/message'>[] {
  return ofType(session, 'user/message').filter(e => e.data.source.kind === 'runtime-context')
}

function requests(app: Context): Message[][] {
  const seen: Message[][] = []
  app.on('llm/before-stream', request => void seen.push([...request.messages]))
  return seen
}

describe('the runtime-context message', () => {
  it('L-125 before the first prompt: a user/message with source runtime-context naming its sections; the request carries exactly the logged text', async () => {
    const { app } = await boot({ script: [{ text: 'ok', repeat: true }], config: ENABLED })
    const seen = requests(app)
    const agent = await app.agents.create({ sessionId: 's1', meta: { cwd }, options: OPTIONS })
    await agent.send('hello')
    const s = agent.session
    expect(shape(s.events).slice(0, 4)).toEqual(['turn/start', 'user/message', 'user/message', 'step/start'])
    expect(s.events[1]!.data).toEqual({
      id: 'user-1', role: 'user',
      source: { kind: 'runtime-context', sections: ['instructions', 'cwd', 'date'] },
      content: [{ type: 'text', text: defaultText(cwd) }],
    })
    expect(seen[0]!.map(m => m.content)).toEqual([contexts(s)[0]!.data.content, [{ type: 'text', text: 'hello' }]])
    expect(retainedRuntimeContext(s)).toEqual({ seq: 1, sections: ['instructions', 'cwd', 'date'], text: defaultText(cwd) })
  })

  it('L-126 unchanged context → nothing more; a changed instruction file or date → one new message before the next request only', async () => {
    const { app } = await boot({
      script: [
        { match: { lastUserIncludes: 'edit' }, toolCalls: [{ id: 'c1', name: 'edit', arguments: {} }] },
        { match: { afterTool: 'edit' }, text: 'edited' },
        { text: 'ok', repeat: true },
      ],
      tools: [tool('edit', { execute: () => {
        writeFileSync(join(cwd, 'AGENTS.md'), 'Never push on Fridays.\n')
        return 'done'
      } })],
      config: ENABLED,
    })
    const agent = await app.agents.create({ sessionId: 's1', meta: { cwd }, options: OPTIONS })
    await agent.send('one')
    await agent.send('two')
    expect(contexts(agent.session)).toHaveLength(1)
    await agent.send('edit the instructions')
    const s = agent.session
    const all = contexts(s)
    expect(all).toHaveLength(2)
    // The edit happened inside step 1, so the step-2 request gets the new text, after the tool result.
    expect(s.events[all[1]!.seq - 1]!.type).toBe('step/start')
    expect(s.events[all[1]!.seq - 2]!.type).toBe('step/end')
    expect(all[1]!.data.content).toEqual([{ type: 'text', text: defaultText(cwd, 'Never push on Fridays.') }])
    vi.setSystemTime(new Date(2026, 11, 2, 9, 0, 0))
    await agent.send('three')
    expect(contexts(s).at(-1)!.data.content[0]).toEqual({ type: 'text', text: defaultText(cwd, 'Never push on Fridays.').replace('2026-12-01', '2026-12-02') })
    expect(contexts(s)).toHaveLength(3)
  })

  it('L-127 a replace by another writer that shadows the retained message (as a compaction does) → the next request injects it again', async () => {
    const { app } = await boot({ script: [{ text: 'ok', repeat: true }], config: ENABLED })
    const agent = await app.agents.create({ sessionId: 's1', meta: { cwd }, options: OPTIONS })
    await agent.send('one')
    const s = agent.session
    const [start, end] = [s.surface.nodes[0]!, s.surface.nodes.at(-1)!]
    s.append('user/message', {
      id: 'summary-x' as never, role: 'user', source: { kind: 'plugin', plugin: 'compaction' }, content: [{ type: 'text', text: 'summary' }],
    }, { surfaceOp: { op: 'replace', start, end }, sourceEventSeqs: [...s.surface.nodes] })
    expect(retainedRuntimeContext(s)).toBeUndefined()
    await agent.send('two')
    expect(contexts(s)).toHaveLength(2)
    expect(s.surface.nodes.map(seq => s.events[seq]!.type)).toEqual(['user/message', 'user/message', 'user/message', 'assistant/message'])
    expect(s.deriveMessages().map(m => m.content[0])).toEqual([
      { type: 'text', text: 'summary' }, { type: 'text', text: defaultText(cwd) }, { type: 'text', text: 'two' }, { type: 'text', text: 'ok' },
    ])
  })

  it('L-127 a runtime-context message another writer appends is what the model saw: an equal rendering appends nothing', async () => {
    const { app } = await boot({ script: [{ text: 'ok', repeat: true }], config: ENABLED })
    const agent = await app.agents.create({ sessionId: 's1', meta: { cwd }, options: OPTIONS })
    agent.session.append('user/message', {
      id: 'ctx-0' as never, role: 'user', source: { kind: 'runtime-context', sections: ['instructions', 'cwd', 'date'] } as never,
      content: [{ type: 'text', text: defaultText(cwd) }],
    }, { surfaceOp: 'append' })
    await agent.send('one')
    expect(contexts(agent.session).map(e => e.seq)).toEqual([0])
    expect(ofType(agent.session, 'turn/start')).toHaveLength(1)
  })

  it('L-128 resume and fork rebuild the retained context from the log: an unchanged context is not injected again', async () => {
    const first = await boot({ memory: 'context-resume', script: [{ text: 'ok', repeat: true }], config: ENABLED })
    const old = await first.app.agents.create({ sessionId: 's1', meta: { cwd }, options: OPTIONS })
    await old.send('one')
    await old.dispose()
    const { app } = await boot({ memory: 'context-resume', script: [{ text: 'ok', repeat: true }], config: ENABLED })
    const resumed = await app.agents.resume({ resumeSessionId: 's1' })
    await resumed.send('two')
    expect(contexts(resumed.session)).toHaveLength(1)
    const child = await app.agents.fork({ sourceSessionId: 's1' })
    await child.send('three')
    expect(contexts(child.session)).toHaveLength(1)
    writeFileSync(join(cwd, 'AGENTS.md'), 'Changed.\n')
    await child.send('four')
    expect(contexts(child.session)).toHaveLength(2)
    expect(contexts(resumed.session)).toHaveLength(1)
  })

  it('L-129 plugin sections render after the built-ins in registration order; config turns sections off; disposal removes one', async () => {
    const { app, logs } = await boot({
      script: [{ text: 'ok', repeat: true }],
      config: { runtimeContext: { enabled: true, instructionFiles: ['AGENTS.md'], sections: { instructions: false, date: false, quiet: false } } },
    })
    const fiber = await app.plugin({
      name: 'branch-section',
      inject: ['agents'],
      apply: (ctx: Context) => {
        ctx.agents.registerContextSection({ name: 'git-branch', render: ({ cwd: dir }) => `main (in ${dir})` })
        ctx.agents.registerContextSection({ name: 'quiet', render: () => 'never shown' })
        ctx.agents.registerContextSection({ name: 'empty', render: async () => undefined })
        ctx.agents.registerContextSection({ name: 'broken', render: () => { throw new Error('no repo') } })
      },
    })
    const agent = await app.agents.create({ sessionId: 's1', meta: { cwd }, options: OPTIONS })
    await agent.send('one')
    expect(contexts(agent.session)[0]!.data).toMatchObject({
      source: { kind: 'runtime-context', sections: ['cwd', 'git-branch'] },
      content: [{ type: 'text', text: contextText(`<cwd>\n${cwd}\n</cwd>\n<git-branch>\nmain (in ${cwd})\n</git-branch>`) }],
    })
    expect(logs.filter(line => line.includes('context section broken failed: no repo'))).toHaveLength(1)
    await fiber.dispose()
    await agent.send('two')
    expect(contexts(agent.session).at(-1)!.data.source).toEqual({ kind: 'runtime-context', sections: ['cwd'] })
  })

  it('L-129 a bad section name or render → INVALID_CONTEXT_SECTION; a taken or built-in name → CONTEXT_SECTION_TAKEN; disabled → no message', async () => {
    const { app } = await boot({ script: [{ text: 'ok' }] })
    expect(() => app.agents.registerContextSection({ name: 'Bad Name', render: () => '' }))
      .toThrow(expect.objectContaining({ code: 'INVALID_CONTEXT_SECTION', message: 'invalid context section "Bad Name": the name must match ^[a-z][a-z0-9-]{0,63}$' }))
    expect(() => app.agents.registerContextSection({ name: 'x', render: 'no' as never }))
      .toThrow(expect.objectContaining({ code: 'INVALID_CONTEXT_SECTION', message: 'invalid context section x: render must be a function' }))
    expect(() => app.agents.registerContextSection({ name: 'date', render: () => '' }))
      .toThrow(expect.objectContaining({ code: 'CONTEXT_SECTION_TAKEN', message: 'context section date is already registered' }))
    app.agents.registerContextSection({ name: 'x', render: () => 'x' })
    expect(() => app.agents.registerContextSection({ name: 'x', render: () => 'y' })).toThrow(expect.objectContaining({ code: 'CONTEXT_SECTION_TAKEN' }))
    const agent = await app.agents.create({ sessionId: 's1', meta: { cwd }, options: OPTIONS })
    await agent.send('one')
    expect(contexts(agent.session)).toHaveLength(0)
  })
})
