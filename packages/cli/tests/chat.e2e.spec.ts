import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SessionEvent } from '@logbook/session'
import { lines, logbook, logbookArgv, startLogbook } from './helpers/cli.ts'
import { startFakeOpenAi, type FakeOpenAi } from './helpers/fake-openai.ts'
import { tempDir } from './helpers/store.ts'
import { Terminal } from './helpers/tmux.ts'

/** The stored events of `id` (read mode, through `show --json`). */
async function storedEvents(args: readonly string[], id: string, cwd: string): Promise<SessionEvent[]> {
  const run = await logbook(['show', id, '--json', ...args], { cwd })
  expect(run.stderr).toBe('')
  return lines(run.stdout).map(line => JSON.parse(line) as SessionEvent)
}

function texts(events: readonly SessionEvent[], kind = 'user'): string[] {
  return events.flatMap(event => (event.type === 'user/message' && event.data.source.kind === kind
    ? [event.data.content.map(block => (block.type === 'text' ? block.text : '')).join('')] : []))
}

function turnEnds(events: readonly SessionEvent[]): unknown[] {
  return events.flatMap(event => (event.type === 'turn/end' ? [event.data.reason] : []))
}

/** The id in `to resume: logbook chat … --resume <id>`. */
function resumedId(stdout: string): string {
  const match = /to resume: logbook chat .*--resume (\S+)$/m.exec(stdout)
  expect(match).not.toBeNull()
  return match![1]!
}

describe('logbook chat through a pipe', () => {
  it('L-134 reads lines until EOF (a trailing \\ continues a line), streams replies, runs slash commands, prints the resume command', async () => {
    const cwd = tempDir()
    writeFileSync(join(cwd, 'AGENTS.md'), 'Answer in one line.\n')
    const input = ['Plan the release from my notes.', 'first line \\', 'second line', '/projections', '/context', '/nope', 'Where do we stand?', ''].join('\n')
    const run = await logbook(['chat', '--dir', 'store'], { cwd, input })
    expect(run.code).toBe(0)
    const id = resumedId(run.stdout)
    expect(id).toMatch(/^chat-[0-9a-f]{8}$/)
    expect(lines(run.stderr)).toEqual([
      `logbook chat: ${id} (new session); /help lists commands, Ctrl+C cancels a reply, /exit leaves`,
      'logbook: unknown command /nope (try /help) [USAGE]',
    ])
    const out = lines(run.stdout)
    expect(out.slice(0, 4)).toEqual([
      '── runtime context: instructions, cwd, date ──',
      'you> Plan the release from my notes.',
      'model> Let me look at your notes first.',
      'tool> list_notes({})',
    ])
    expect(out).toContain('── turn 1 ended: completed ──')
    const second = out.indexOf('you> first line')
    expect(out.slice(second, second + 4)).toEqual([
      'you> first line',
      '     second line',
      'model> This is the scripted demo model; it only knows the demo tour.',
      '── turn 2 ended: completed ──',
    ])
    expect(out.some(line => new RegExp(`^projections of ${id} as of seq \\d+:$`).test(line))).toBe(true)
    expect(out).toContain('  title: "Plan the release from my notes."')
    expect(out.some(line => line.startsWith('  stats: {"turns":2,'))).toBe(true)
    expect(out).toContain('Answer in one line.')
    expect(out.some(line => /^surface: \d+ nodes, ~\d+ tokens$/.test(line))).toBe(true)
    expect(out.slice(-3)).toEqual([
      'model> The plan is in place (freeze Thursday). The staging deploy may or may not have happened: check /health on staging first, then deploy again if needed.',
      '── turn 3 ended: completed ──',
      `to resume: logbook chat --dir store --resume ${id}`,
    ])
    const events = await storedEvents(['--dir', 'store'], id, cwd)
    expect(texts(events)).toEqual(['Plan the release from my notes.', 'first line \nsecond line', 'Where do we stand?'])
    expect(texts(events, 'runtime-context')).toHaveLength(1)
    expect(turnEnds(events)).toEqual([{ kind: 'completed' }, { kind: 'completed' }, { kind: 'completed' }])
  })

  it('L-135 --resume continues the session, /fork moves the chat into a fork, --fork <id>@<seq> starts in one', async () => {
    const cwd = tempDir()
    const first = await logbook(['chat', '--dir', 'store'], { cwd, input: 'Plan the release from my notes.\n' })
    const id = resumedId(first.stdout)
    const again = await logbook(['chat', '--dir', 'store', '--resume', id], { cwd, input: 'Where do we stand?\n/fork\nWhat happened to the deploy?\n' })
    expect(again.code).toBe(0)
    expect(lines(again.stderr)).toEqual([`logbook chat: ${id} (resumed); /help lists commands, Ctrl+C cancels a reply, /exit leaves`])
    expect(again.stdout).toContain('── turn 2 ended: completed ──')
    const parent = await storedEvents(['--dir', 'store'], id, cwd)
    const forkLine = lines(again.stdout).find(line => line.startsWith('forked '))!
    expect(forkLine).toBe(`forked ${id} after seq ${parent.length - 1} into ${id}-fork-1; now chatting in ${id}-fork-1`)
    expect(resumedId(again.stdout)).toBe(`${id}-fork-1`)
    expect(texts(parent)).toEqual(['Plan the release from my notes.', 'Where do we stand?'])
    const child = await storedEvents(['--dir', 'store'], `${id}-fork-1`, cwd)
    expect(texts(child)).toEqual(['Plan the release from my notes.', 'Where do we stand?', 'What happened to the deploy?'])

    const cut = parent.findIndex(event => event.type === 'turn/end')
    const forked = await logbook(['chat', '--dir', 'store', '--fork', `${id}@${cut}`], { cwd, input: 'Where do we stand?\n' })
    expect(forked.code).toBe(0)
    expect(resumedId(forked.stdout)).toBe(`${id}-fork-2`)
    expect(texts(await storedEvents(['--dir', 'store'], `${id}-fork-2`, cwd))).toEqual(['Plan the release from my notes.', 'Where do we stand?'])
    expect(await storedEvents(['--dir', 'store'], id, cwd)).toEqual(parent)
  })

  it('L-135 bad arguments: --resume with --fork → exit 2; an unknown session → exit 3, nothing stored', async () => {
    const cwd = tempDir()
    const both = await logbook(['chat', '--dir', 'store', '--resume', 'a', '--fork', 'b'], { cwd, input: '' })
    expect([both.code, both.stderr]).toEqual([2, 'logbook: --resume and --fork cannot be combined [USAGE]\n'])
    const missing = await logbook(['chat', '--dir', 'store', '--fork', 'nope@3'], { cwd, input: '' })
    expect([missing.code, missing.stderr]).toEqual([3, 'logbook: session "nope" not found [SESSION_NOT_FOUND]\n'])
    const list = await logbook(['list', '--dir', 'store', '--json'], { cwd })
    expect(JSON.parse(list.stdout).items).toEqual([])
  })

  it('L-136 SIGINT while a turn runs cancels it (the turn ends aborted in the log); the chat goes on until EOF', async () => {
    const cwd = tempDir()
    const chat = startLogbook(['chat', '--dir', 'store'], { cwd, input: 'open' })
    chat.child.stdin!.write('Deploy it to staging.\n')
    for (let i = 0; i < 2400 && !chat.stdout().includes('tool> deploy('); i++) await new Promise(resolve => setTimeout(resolve, 25))
    chat.child.kill('SIGINT')
    for (let i = 0; i < 2400 && !chat.stdout().includes('turn 1 ended'); i++) await new Promise(resolve => setTimeout(resolve, 25))
    chat.child.stdin!.end('Where do we stand?\n')
    const run = await chat.done
    expect(run.code).toBe(0)
    expect(run.stdout).toContain('── turn 1 ended: aborted (user) ──')
    expect(run.stdout).toContain('── turn 2 ended: completed ──')
    const events = await storedEvents(['--dir', 'store'], resumedId(run.stdout), cwd)
    expect(turnEnds(events)).toEqual([{ kind: 'aborted', reason: { kind: 'user' } }, { kind: 'completed' }])
  })
})

describe('logbook chat against an OpenAI-compatible server', () => {
  let server: FakeOpenAi
  beforeAll(async () => {
    server = await startFakeOpenAi()
  })
  afterAll(async () => {
    await server.close()
  })

  it('L-134 --config: the first agents[] entry gives the model; the request carries the logged runtime context; --resume continues', async () => {
    const cwd = tempDir()
    const file = join(cwd, 'cordis.yml')
    writeFileSync(file, [
      `- { id: session,     name: '@logbook/session' }`,
      `- { id: persistence, name: '@logbook/session-persistence-jsonl', config: { root: ./.logbook } }`,
      `- { id: llm,         name: '@logbook/llm' }`,
      `- { id: model,       name: '@logbook/llm-openai', config: { baseUrl: '${server.baseUrl}', models: [{ id: local, contextWindow: 32768 }] } }`,
      `- { id: tools,       name: '@logbook/tools' }`,
      `- { id: agents,      name: '@logbook/agent-loop', config: { runtimeContext: { enabled: true, sections: { date: false } }, agents: [{ id: main, provider: openai, model: local }] } }`,
      '',
    ].join('\n'))
    const run = await logbook(['chat', '--config', file], { cwd, input: 'Hello\n' })
    expect(run.code).toBe(0)
    const id = resumedId(run.stdout)
    expect(lines(run.stdout)).toEqual([
      '── runtime context: cwd ──',
      'you> Hello',
      'model> You said: Hello',
      '── turn 1 ended: completed ──',
      `to resume: logbook chat --config ${file} --resume ${id}`,
    ])
    const request = server.requests.at(-1) as { model: string; messages: { role: string; content: string }[] }
    expect(request.model).toBe('local')
    expect(request.messages).toEqual([
      { role: 'user', content: `<runtime-context>\n<cwd>\n${cwd}\n</cwd>\n</runtime-context>` },
      { role: 'user', content: 'Hello' },
    ])
    const again = await logbook(['chat', '--config', file, '--resume', id], { cwd, input: 'Again\n' })
    expect(again.code).toBe(0)
    expect(lines(again.stdout).slice(0, 3)).toEqual(['you> Again', 'model> You said: Again', '── turn 2 ended: completed ──'])
    expect((server.requests.at(-1) as { messages: unknown[] }).messages).toHaveLength(4)
  })
})

describe('logbook chat on a terminal (tmux)', () => {
  afterAll(() => {
    try {
      execFileSync('tmux', ['-L', `logbook-test-${process.pid}`, 'kill-server'], { stdio: 'ignore' })
    } catch {
      // No server is left to stop.
    }
  })

  it('L-137 prompt, \\ continuation, bracketed paste, Ctrl+C cancels the running turn, Ctrl+C at an empty prompt exits with the resume command', async () => {
    const cwd = tempDir()
    writeFileSync(join(cwd, 'AGENTS.md'), 'Keep answers short.\n')
    const terminal = Terminal.start([...logbookArgv(), 'chat', '--dir', 'store'], cwd, { NO_COLOR: '1' })
    try {
      await terminal.waitFor(/\nyou>$/)
      terminal.type('Plan the release from my notes.')
      terminal.keys('Enter')
      await terminal.waitFor('── turn 1 ended: completed ──')
      terminal.type('first line \\')
      terminal.keys('Enter')
      await terminal.waitFor(/\n\.\.\.$/)
      terminal.type('second line')
      terminal.keys('Enter')
      await terminal.waitFor('── turn 2 ended: completed ──')
      terminal.paste('pasted one\npasted two')
      terminal.keys('Enter')
      await terminal.waitFor('── turn 3 ended: completed ──')
      terminal.type('Deploy it to staging.')
      terminal.keys('Enter')
      await terminal.waitFor('tool> deploy({"env":"staging"})')
      terminal.keys('C-c')
      await terminal.waitFor('── turn 4 ended: aborted (user) ──')
      terminal.type('/context')
      terminal.keys('Enter')
      await terminal.waitFor(/surface: \d+ nodes/)
      terminal.type('half typed')
      terminal.keys('C-c')
      await terminal.waitFor(/\nyou> half typed\^C\nyou>$/)
      terminal.keys('C-c')
      const screen = await terminal.waitFor('[exit 0]')
      const id = resumedId(screen.split('\n').filter(line => line.startsWith('to resume:')).join('\n'))
      expect(screen).toContain(`to resume: logbook chat --dir store --resume ${id}`)
      expect(screen).toContain('you> Plan the release from my notes.\n── runtime context: instructions, cwd, date ──')
      expect(screen).toContain('you> first line \\\n...  second line\nmodel> ')
      expect(screen).toContain('<file path="AGENTS.md">\nKeep answers short.\n</file>')
      // The terminal already shows what was typed: no second `you>` line per message.
      expect(screen.split('\n').filter(line => line.startsWith('you> Plan'))).toHaveLength(1)
      const events = await storedEvents(['--dir', 'store'], id, cwd)
      expect(texts(events)).toEqual(['Plan the release from my notes.', 'first line \nsecond line', 'pasted one\npasted two', 'Deploy it to staging.'])
      expect(turnEnds(events)).toEqual([{ kind: 'completed' }, { kind: 'completed' }, { kind: 'completed' }, { kind: 'aborted', reason: { kind: 'user' } }])
    } finally {
      terminal.kill()
    }
  })
})
