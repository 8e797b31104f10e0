import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { Context } from '@deepseek-ai/cordis'
import Agents from '@logbook/agent-loop'
import Llm from '@logbook/llm'
import SessionStore, { type SessionEvent } from '@logbook/session'
import * as SessionInvariant from '@logbook/session/invariant'
import JsonlSessionPersistence from '@logbook/session-persistence-jsonl'
import Tools from '@logbook/tools'
import * as Scripted from '@logbook/llm-scripted'
import * as Policy from '../src/index.ts'
import { shape } from './helpers.ts'

const here = dirname(fileURLToPath(import.meta.url))
const packageDir = join(here, '..')
const dirs: string[] = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

/** Run the child until it reports `marker`, SIGKILL it and wait until it is reaped. */
async function crashChild(root: string, mode: 'model' | 'tool', marker: string): Promise<void> {
  const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', join(here, 'fixtures', 'crash-child.ts'), root, mode], {
    cwd: packageDir, stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  })
  let stderr = ''
  child.stderr!.on('data', chunk => { stderr += String(chunk) })
  const exited = new Promise<NodeJS.Signals | number | null>(resolve => child.on('exit', (code, signal) => resolve(signal ?? code)))
  await new Promise<void>((resolve, reject) => {
    child.on('message', message => {
      if (message === marker) resolve()
      else reject(new Error(`child reported "${String(message)}" instead of "${marker}"`))
    })
    void exited.then(code => reject(new Error(`child exited (${String(code)}) before "${marker}": ${stderr}`)))
  })
  child.kill('SIGKILL')
  expect(await exited).toBe('SIGKILL')
}

/** A parent app on the same store, answering the next turn. */
async function parentApp(root: string): Promise<Context> {
  const app = new Context()
  await app.plugin(SessionStore)
  await app.plugin(SessionInvariant)
  await app.plugin(JsonlSessionPersistence, { root, durability: 'none' })
  await app.plugin(Policy)
  await app.plugin(Llm)
  await app.plugin(Scripted, { script: [{ text: 'The previous turn was interrupted.', repeat: true }] })
  await app.plugin(Tools)
  await app.plugin(Agents)
  return app
}

function tempRoot(): string {
  const dir = mkdtempSync(join(tmpdir(), 'logbook-crash-'))
  dirs.push(dir)
  return dir
}

describe('crash with the checkpoint policy (real child process, JSONL, SIGKILL)', () => {
  it('P-093 killed while the model request is in flight → the request prefix is durable; resume appends step/end, turn/end {interrupted}', async () => {
    const root = tempRoot()
    await crashChild(root, 'model', 'in-stream')
    const app = await parentApp(root)
    const agent = await app.agents.resume({ resumeSessionId: 'crash' })
    const events = agent.session.events
    expect(shape(events)).toEqual([
      'turn/start', 'user/message', 'step/start', 'request/header', 'request/context', 'step/end', 'turn/end', 'session/end-seed',
    ])
    expect(events[6]!.data).toEqual({ turn: 1, reason: { kind: 'interrupted' } })
    const result = await agent.send('what happened?')
    expect(result).toMatchObject({ turn: 2, reason: { kind: 'completed' } })
    expect(agent.session.events.filter(e => e.type === 'request/header').map(e => (e as SessionEvent<'request/header'>).data.reason))
      .toEqual(['initial', 'resume'])
    await agent.dispose()
    expect(JSON.stringify(await app.sessionPersistence.readFrom('crash', 0))).toBe(JSON.stringify(agent.session.events))
  })

  it('P-094 killed inside a tool body → assistant/message and tool/call are durable; resume closes with TOOL_OUTCOME_UNKNOWN', async () => {
    const root = tempRoot()
    await crashChild(root, 'tool', 'in-tool')
    const app = await parentApp(root)
    const agent = await app.agents.resume({ resumeSessionId: 'crash' })
    const events = agent.session.events
    expect(shape(events)).toEqual([
      'turn/start', 'user/message', 'step/start', 'request/header', 'request/context', 'chunks', 'assistant/message', 'tool/call',
      'tool/result', 'step/end', 'turn/end', 'session/end-seed',
    ])
    const call = events.find(e => e.type === 'tool/call')!
    const result = events.find(e => e.type === 'tool/result') as SessionEvent<'tool/result'>
    expect(result.sourceEventSeqs).toEqual([call.seq])
    expect(result.data.error).toEqual({ name: 'ToolOutcomeUnknownError', code: 'TOOL_OUTCOME_UNKNOWN' })
    const text = (result.data.message.content[0].content[0] as { text: string }).text
    expect(text).toMatch(/^The tool call was interrupted after it was recorded as started/)
    expect(text).toContain('Do not retry blindly.')
    expect(events.at(-2)!.data).toEqual({ turn: 1, reason: { kind: 'interrupted' } })
    expect((await agent.send('did it deploy?')).reason).toEqual({ kind: 'completed' })
    await agent.dispose()
  })
})
