import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { lines, logbook, startLogbook } from './helpers/cli.ts'
import { startFakeOpenAi, type FakeOpenAi } from './helpers/fake-openai.ts'
import { tempDir } from './helpers/store.ts'
import type { SessionEvent } from '@logbook/session'

const examples = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'examples')

type Row = readonly [id: string, line: string]

function app(baseUrl: string, persistence: string): Row[] {
  return [
    ['session', `- { id: session,     name: '@logbook/session' }`],
    ['persistence', persistence],
    ['checkpoint', `- { id: checkpoint,  name: '@logbook/session-checkpoint-policy' }`],
    ['projection', `- { id: projection,  name: '@logbook/session-projection' }`],
    ['llm', `- { id: llm,         name: '@logbook/llm' }`],
    ['model', `- { id: model,       name: '@logbook/llm-openai', config: { baseUrl: '${baseUrl}', models: [{ id: local, contextWindow: 32768 }] } }`],
    ['tools', `- { id: tools,       name: '@logbook/tools' }`],
    ['compaction', `- { id: compaction,  name: '@logbook/compaction-basic' }`],
    ['agents', `- { id: agents,      name: '@logbook/agent-loop', config: { agents: [{ id: main, provider: openai, model: local, prompts: ['Hello', 'How are you?'] }] } }`],
  ]
}

const JSONL = `- { id: persistence, name: '@logbook/session-persistence-jsonl', config: { root: ./.logbook } }`
const SQLITE = `- { id: persistence, name: '@logbook/session-persistence-sqlite', config: { path: ./.logbook/logbook.sqlite } }`

function write(rows: readonly Row[]): string {
  const dir = tempDir('logbook-app-')
  const file = join(dir, 'cordis.yml')
  writeFileSync(file, `${rows.map(([, line]) => line).join('\n')}\n`)
  return file
}

function replace(rows: readonly Row[], id: string, line: string | undefined): Row[] {
  return rows.flatMap(row => (row[0] !== id ? [row] : line === undefined ? [] : [[id, line] as const]))
}

describe('logbook run --config', () => {
  let server: FakeOpenAi
  const cwd = tempDir()
  beforeAll(async () => {
    server = await startFakeOpenAi()
  })
  afterAll(async () => {
    await server.close()
  })

  const transcript = [
    'you> Hello',
    'model> You said: Hello',
    '── turn 1 ended: completed ──',
    'you> How are you?',
    'model> You said: How are you?',
    '── turn 2 ended: completed ──',
  ]

  it('L-119 a JSONL app with its model at a local server runs every turn and exits 0; the SQLite row gives the same transcript', async () => {
    const jsonl = await logbook(['run', '--config', write(app(server.baseUrl, JSONL))], { cwd })
    expect(jsonl.stderr).toBe('')
    expect(jsonl.code).toBe(0)
    expect(lines(jsonl.stdout)).toEqual(transcript)
    const sqlite = await logbook(['run', '--config', write(app(server.baseUrl, SQLITE))], { cwd })
    expect(sqlite.stderr).toBe('')
    expect(sqlite.code).toBe(0)
    expect(sqlite.stdout).toBe(jsonl.stdout)
    expect(server.requests).toHaveLength(4)
  })

  it('L-119 the sessions of a config app are stored where its persistence row says', async () => {
    const file = write(app(server.baseUrl, SQLITE))
    const elsewhere = tempDir()
    expect((await logbook(['run', '--config', file], { cwd: elsewhere })).code).toBe(0)
    // Relative paths in an entry's config resolve against the config file's folder, not the working directory.
    expect(existsSync(join(dirname(file), '.logbook', 'logbook.sqlite'))).toBe(true)
    expect(existsSync(join(elsewhere, '.logbook'))).toBe(false)
    const listed = await logbook(['list', '--config', file, '--json'], { cwd })
    const page = JSON.parse(listed.stdout) as { items: { id: string; turns: number; title: string }[] }
    expect(page.items).toHaveLength(1)
    expect(page.items[0]).toMatchObject({ turns: 2, title: 'Hello' })
    expect(page.items[0]!.id).toMatch(/^main-[0-9a-f-]{36}$/)
  })

  it('L-119 a bad config key fails the boot with one line naming the entry, exit 1', async () => {
    const rows = replace(app(server.baseUrl, JSONL), 'compaction', `- { id: compaction,  name: '@logbook/compaction-basic', config: { tresholdRatio: 0.5 } }`)
    const run = await logbook(['run', '--config', write(rows)], { cwd })
    expect(run.code).toBe(1)
    expect(run.stdout).toBe('')
    const out = lines(run.stderr)
    expect(out).toHaveLength(1)
    expect(out[0]).toMatch(/^logbook: entry compaction \(@logbook\/compaction-basic\) failed: .*tresholdRatio/)
  })

  it('L-119 a missing package fails the boot with one line naming the entry, exit 1', async () => {
    const rows = [...app(server.baseUrl, JSONL), ['extra', `- { id: extra, name: '@logbook/does-not-exist' }`] as const]
    const run = await logbook(['run', '--config', write(rows)], { cwd })
    expect(run.code).toBe(1)
    const out = lines(run.stderr)
    expect(out).toHaveLength(1)
    expect(out[0]).toMatch(/^logbook: entry extra \(@logbook\/does-not-exist\) failed: .*@logbook\/does-not-exist/)
    expect(server.requests.length).toBeLessThanOrEqual(6)
  })

  it('L-119 an unmet service fails the boot: "is waiting for service", exit 1', async () => {
    const run = await logbook(['run', '--config', write(replace(app(server.baseUrl, JSONL), 'persistence', undefined))], { cwd })
    expect(run.code).toBe(1)
    expect(lines(run.stderr)).toEqual(['logbook: entry checkpoint (@logbook/session-checkpoint-policy) is waiting for service sessionPersistence'])
  })

  it('run --keep-alive waits after the turns; SIGINT disposes the app and exits 130', async () => {
    const running = startLogbook(['run', '--config', write(app(server.baseUrl, JSONL)), '--keep-alive'], { cwd })
    for (let i = 0; i < 400 && !running.stdout().includes('turn 2 ended'); i++) await new Promise(resolve => setTimeout(resolve, 25))
    expect(running.stdout()).toContain('── turn 2 ended: completed ──')
    running.child.kill('SIGINT')
    const run = await running.done
    expect(run.code).toBe(130)
    expect(lines(run.stderr)).toEqual(['logbook: interrupted'])
  })

  it('L-119 a plugin whose apply throws fails the boot with one line naming the entry, exit 1', async () => {
    const file = write([...app(server.baseUrl, JSONL), ['boom', `- { id: boom, name: ./boom.mjs }`] as const])
    writeFileSync(join(dirname(file), 'boom.mjs'), `export const name = 'boom'\nexport function apply() { throw new Error('the boom plugin\\ncannot start') }\n`)
    const run = await logbook(['run', '--config', file], { cwd })
    expect(run.code).toBe(1)
    expect(run.stdout).toBe('')
    expect(lines(run.stderr)).toEqual(['logbook: entry boom (./boom.mjs) failed: the boom plugin cannot start'])
  })

  it('L-119 package names resolve from the config folder first; Cordis log records go to stderr, one line each', async () => {
    const file = write([...app(server.baseUrl, JSONL).slice(0, 2), ['noisy', `- { id: noisy, name: acme-noisy }`] as const])
    const pkg = join(dirname(file), 'node_modules', 'acme-noisy')
    mkdirSync(pkg, { recursive: true })
    writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'acme-noisy', type: 'module', exports: './index.js' }))
    writeFileSync(join(pkg, 'index.js'), [
      `export const name = 'acme-noisy'`,
      `export function apply(ctx) {`,
      `  ctx.logger('acme-noisy').warn('first line\\nsecond line')`,
      `  ctx.logger('acme-noisy').info('only with LOGBOOK_DEBUG')`,
      `  ctx.logger('acme-noisy').error(new Error('an error record'))`,
      `}`,
    ].join('\n'))
    const run = await logbook(['list', '--config', file], { cwd })
    expect(run.code).toBe(0)
    expect(run.stdout).toBe('')
    expect(lines(run.stderr)).toEqual(['logbook: warn acme-noisy: first line second line', 'logbook: error acme-noisy: an error record', 'no stored sessions'])
    const quiet = await logbook(['list', '--config', file, '--quiet'], { cwd })
    expect(quiet.code).toBe(0)
    expect(lines(quiet.stderr)).toEqual(['logbook: error acme-noisy: an error record'])
  })

  it('L-119 run needs --config; a missing file is one line, exit 1', async () => {
    const none = await logbook(['run'], { cwd })
    expect(none.code).toBe(2)
    expect(lines(none.stderr)).toEqual(['logbook: run needs --config <file> [USAGE]'])
    const missing = await logbook(['run', '--config', 'nope.yml'], { cwd })
    expect(missing.code).toBe(1)
    expect(lines(missing.stderr)).toEqual([`logbook: config file not found: ${join(cwd, 'nope.yml')} [BOOT_FAILED]`])
    const notAList = join(tempDir(), 'cordis.yml')
    writeFileSync(notAList, 'session: { name: "@logbook/session" }\n')
    const bad = await logbook(['run', '--config', notAList], { cwd })
    expect(bad.code).toBe(1)
    expect(bad.stdout).toBe('')
    expect(lines(bad.stderr)).toEqual([`logbook: cannot load ${notAList}: config file must be a top-level array of entries: ${notAList} [BOOT_FAILED]`])
  })
})

describe('logbook run: a turn that does not complete', () => {
  it('L-119 a model failure ends the turn with an error line and exits 1', async () => {
    const server = await startFakeOpenAi()
    try {
      const rows = app(server.baseUrl, JSONL).map(row => (row[0] !== 'agents' ? row : ['agents',
        `- { id: agents, name: '@logbook/agent-loop', config: { agents: [{ id: main, provider: openai, model: local, prompts: ['Hello', 'please fail'] }] } }`] as const))
      const run = await logbook(['run', '--config', write(rows)], { cwd: tempDir() })
      expect(run.code).toBe(1)
      expect(lines(run.stdout)).toEqual([
        'you> Hello',
        'model> You said: Hello',
        '── turn 1 ended: completed ──',
        'you> please fail',
        '── turn 2 ended: error PROVIDER: openai: HTTP 503: overloaded ──',
      ])
    } finally {
      await server.close()
    }
  })
})

describe('logbook run and show: reasoning, refusals, missing usage and unknown finish reasons', () => {
  it('L-150 run prints thinking> and refused> as they stream, show prints the same; a cut before usage and an unknown finish reason are recorded', async () => {
    const server = await startFakeOpenAi()
    const cwd = tempDir()
    try {
      const prompts = "['think it over', 'refuse this', 'cut short', 'strange one']"
      const rows = app(server.baseUrl, JSONL).map(row => (row[0] !== 'agents' ? row : ['agents',
        `- { id: agents, name: '@logbook/agent-loop', config: { agents: [{ id: main, provider: openai, model: local, prompts: ${prompts} }] } }`] as const))
      const file = write(rows)
      const run = await logbook(['run', '--config', file], { cwd })
      const unknown = '── turn 4 ended: error PROVIDER: openai: the response ended with finish_reason "insufficient_system_resource", which this adapter does not know; the answer may be incomplete ──'
      const answered = [
        'you> think it over',
        'thinking> Let me think.',
        'model> You said: think it over',
        '── turn 1 ended: completed ──',
        'you> refuse this',
        'refused> I cannot help with that.',
        '── turn 2 ended: completed ──',
        'you> cut short',
        'model> You said: cut short',
        '── turn 3 ended: completed ──',
        'you> strange one',
      ]
      expect(run.stderr).toBe('')
      expect(run.code).toBe(1)
      // The failed attempt's text streamed live; the stored transcript has no assistant message for it.
      expect(lines(run.stdout)).toEqual([...answered, 'model> You said: strange one', unknown])
      const listed = JSON.parse((await logbook(['list', '--config', file, '--json'], { cwd })).stdout) as { items: { id: string }[] }
      const id = listed.items[0]!.id
      const shown = await logbook(['show', id, '--config', file], { cwd })
      expect(shown.code).toBe(0)
      expect(lines(shown.stdout)).toEqual([...answered, unknown])
      const surface = await logbook(['show', id, '--surface', '--config', file], { cwd })
      expect(lines(surface.stdout)).toContain('refused> I cannot help with that.')
      const events = lines((await logbook(['show', id, '--config', file, '--json'], { cwd })).stdout).map(line => JSON.parse(line) as SessionEvent)
      const messages = events.filter(event => event.type === 'assistant/message').map(event => event.data as Record<string, unknown>)
      expect(messages.map(m => [m.usage !== undefined, m.usageMissing, m.rawFinishReason])).toEqual([
        [true, undefined, 'stop'], [true, undefined, 'stop'], [false, true, 'stop'],
      ])
      expect((messages[1]!.message as { content: unknown[] }).content).toEqual([{ type: 'refusal', text: 'I cannot help with that.' }])
    } finally {
      await server.close()
    }
  })
})

describe('the shipped examples', () => {
  function copy(name: string): string {
    const dir = join(tempDir('logbook-example-'), name)
    mkdirSync(dir)
    for (const file of ['cordis.yml', 'script.json']) cpSync(join(examples, name, file), join(dir, file))
    return join(dir, 'cordis.yml')
  }

  it('L-119 examples/jsonl and examples/sqlite differ in exactly the persistence row', () => {
    const jsonl = readFileSync(join(examples, 'jsonl', 'cordis.yml'), 'utf8').split('\n')
    const sqlite = readFileSync(join(examples, 'sqlite', 'cordis.yml'), 'utf8').split('\n')
    expect(sqlite).toHaveLength(jsonl.length)
    const differing = jsonl.flatMap((line, index) => (line === sqlite[index] ? [] : [[line, sqlite[index]]]))
    expect(differing).toEqual([[
      `- { id: persistence, name: '@logbook/session-persistence-jsonl', config: { root: ./.logbook } }`,
      `- { id: persistence, name: '@logbook/session-persistence-sqlite', config: { path: ./.logbook/logbook.sqlite } }`,
    ]])
  })

  it('L-119 each real cordis.yml boots through the loader and runs its turns end to end (JSONL and SQLite)', async () => {
    const outputs: string[] = []
    for (const name of ['jsonl', 'sqlite']) {
      const file = copy(name)
      const run = await logbook(['run', '--config', file], { cwd: dirname(file) })
      expect(run.stderr).toBe('')
      expect(run.code).toBe(0)
      expect(lines(run.stdout)).toEqual([
        'system> You are a friendly assistant.',
        'you> Hello',
        'model> Hello! I am a scripted model running offline.',
        '── turn 1 ended: completed ──',
        'you> What can you do?',
        'model> I answer from a script, so every run prints the same conversation.',
        '── turn 2 ended: completed ──',
      ])
      const verify = await logbook(['list', '--config', file, '--json'], { cwd: dirname(file) })
      const page = JSON.parse(verify.stdout) as { items: { events: number }[] }
      expect(page.items).toHaveLength(1)
      // The search row of the file indexes the run's commits beside the store; its hits name the session.
      const found = await logbook(['search', '--config', file, 'scripted', '--json'], { cwd: dirname(file) })
      expect(found.code).toBe(0)
      const hits = (JSON.parse(found.stdout) as { hits: { type: string; field: string; onSurface: boolean }[] }).hits
      expect(hits.map(hit => [hit.type, hit.field, hit.onSurface])).toEqual([['assistant/message', 'assistant', true]])
      outputs.push(run.stdout)
    }
    expect(outputs[1]).toBe(outputs[0])
  })

  it('L-119 examples/openai boots the spec\'s model row against a local server, the key taken from the environment', async () => {
    const server = await startFakeOpenAi()
    try {
      const dir = join(tempDir('logbook-example-'), 'openai')
      mkdirSync(dir)
      const source = readFileSync(join(examples, 'openai', 'cordis.yml'), 'utf8')
      expect(source).toContain(`baseUrl: 'http://127.0.0.1:8080/v1', apiKey: !!js process.env.OPENAI_API_KEY, models: [{ id: local, contextWindow: 32768 }]`)
      writeFileSync(join(dir, 'cordis.yml'), source.replace('http://127.0.0.1:8080/v1', server.baseUrl))
      const run = await logbook(['run', '--config', join(dir, 'cordis.yml')], { cwd: dir, env: { OPENAI_API_KEY: 'sk-from-env' } })
      expect(run.stderr).toBe('')
      expect(run.code).toBe(0)
      expect(lines(run.stdout)).toEqual(['you> Hello', 'model> You said: Hello', '── turn 1 ended: completed ──'])
      expect(server.authorizations).toEqual(['Bearer sk-from-env'])
      const keyless = await logbook(['run', '--config', join(dir, 'cordis.yml')], { cwd: dir, env: { OPENAI_API_KEY: undefined } })
      expect(keyless.code).toBe(0)
      expect(server.authorizations).toEqual(['Bearer sk-from-env', undefined])
    } finally {
      await server.close()
    }
  })

  it('L-119 the bad-entry example fails loudly: one line, exit 1', async () => {
    const file = copy('bad-entry')
    const run = await logbook(['run', '--config', file], { cwd: dirname(file) })
    expect(run.code).toBe(1)
    expect(run.stdout).toBe('')
    expect(lines(run.stderr)).toEqual(['logbook: entry compaction (@logbook/compaction-basic) failed: invalid config for @logbook/compaction-basic: thresholdRatio: must be a number in (0, 1]'])
  })
})
