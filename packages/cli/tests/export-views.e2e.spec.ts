import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { SessionEvent } from '@logbook/session'
import { beforeAll, describe, expect, it } from 'vitest'
import { BUILT_IN_SECRETS } from '../src/redact.ts'
import { lines, logbook } from './helpers/cli.ts'
import { storeEvents, tempDir, turnEvents, withStore } from './helpers/store.ts'

const SECRETS = [
  'sk-proj-A1b2C3d4E5f6G7h8I9j0K1l2',
  'AKIAIOSFODNN7EXAMPLE',
  'ghp_abcdefghijklmnopqrstuvwxyz0123456789',
  'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
  '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----',
]
const BEARER = 'Authorization: Bearer abcdefghijklmnop1234'

/** A user text holding every secret. */
const LEAKY = `my keys: ${SECRETS.join(' and ')}; ${BEARER}; ticket project-4711`

describe('logbook export: markdown, html, redaction', () => {
  const cwd = tempDir()
  const root = join(cwd, '.logbook')

  beforeAll(async () => {
    await withStore(root, async (app) => {
      await storeEvents(app, 'plain', [...turnEvents(0, 1, 1_000, 'Plan the release'), ...turnEvents(6, 2, 2_000, 'And then?')], { cwd: '/home/user/project' })
      await storeEvents(app, 'leaky', turnEvents(0, 1, 1_000, LEAKY))
    })
  })

  it('L-171 markdown is the transcript by turn; html is one self-contained page', async () => {
    const markdown = await logbook(['export', 'plain', '--format', 'markdown'], { cwd })
    expect(markdown.code).toBe(0)
    expect(markdown.stderr).toBe('')
    const text = markdown.stdout
    expect(text.split('\n')[0]).toBe('# Plan the release')
    expect(text).toContain('| Folder | `/home/user/project` |')
    expect(text.split('\n').filter(line => line.startsWith('## '))).toEqual(['## Turn 1 · completed · in 0 · out 0', '## Turn 2 · completed · in 0 · out 0'])
    expect(text).toContain('**You**\n\nAnd then?\n\n**Model** · scripted/demo\n\nre: And then?')
    const html = await logbook(['export', 'plain', '--format', 'html', '--out', 'plain.html'], { cwd })
    expect(html.code).toBe(0)
    expect(html.stdout).toBe('')
    const page = readFileSync(join(cwd, 'plain.html'), 'utf8')
    expect(page).toMatch(/^<!doctype html>\n<html lang="en">/)
    expect(page).toContain('<meta http-equiv="Content-Security-Policy"')
    expect(page).not.toMatch(/<script|<link|src="/)
    expect(page).toContain('re: Plan the release')
  })

  it('L-172 every format replaces the built-in secrets and each --redact match; the jsonl export line says so', async () => {
    for (const format of ['jsonl', 'openai-messages', 'anthropic-messages', 'otel-genai', 'markdown', 'html']) {
      const run = await logbook(['export', 'leaky', '--format', format, '--redact', 'project-\\d+'], { cwd })
      expect(run.code, format).toBe(0)
      for (const secret of [...SECRETS, 'abcdefghijklmnop1234', 'project-4711']) {
        for (const piece of secret.split('\n')) expect(run.stdout, `${format} leaks ${piece}`).not.toContain(piece.slice(0, 12) === '-----BEGIN O' ? 'b3BlbnNzaC1' : piece)
      }
      expect(run.stdout, format).toContain('[redacted]')
      expect(run.stdout, format).toContain('Bearer [redacted]')
    }
    const jsonl = await logbook(['export', 'leaky', '--format', 'jsonl', '--redact', 'project-\\d+'], { cwd })
    // Seven matches in the user's text, seven more in the reply that quotes it.
    const [head, ...events] = lines(jsonl.stdout).map(line => JSON.parse(line) as Record<string, unknown>)
    expect(head).toEqual({ logbook: 'export', formatVersion: 1, header: expect.objectContaining({ id: 'leaky' }), redacted: { patterns: BUILT_IN_SECRETS.length + 1, replacements: 14 } })
    const user = events.find(event => event.type === 'user/message') as unknown as SessionEvent<'user/message'>
    expect(user.data.content[0]).toEqual({ type: 'text', text: 'my keys: [redacted] and [redacted] and [redacted] and [redacted] and [redacted]; Authorization: Bearer [redacted]; ticket [redacted]' })
  })

  it('L-172 a redacted jsonl export still imports; --no-redact exports as stored, with no redacted mark', async () => {
    expect((await logbook(['export', 'leaky', '--format', 'jsonl', '--out', 'leaky.jsonl'], { cwd })).code).toBe(0)
    const imported = await logbook(['import', 'leaky.jsonl', '--as', 'leaky-copy'], { cwd })
    expect(imported.code).toBe(0)
    const raw = await logbook(['export', 'leaky', '--format', 'jsonl', '--no-redact'], { cwd })
    expect(raw.code).toBe(0)
    expect(JSON.parse(lines(raw.stdout)[0]!)).not.toHaveProperty('redacted')
    expect(raw.stdout).toContain(JSON.stringify(LEAKY))
    const plain = await logbook(['export', 'plain', '--format', 'jsonl'], { cwd })
    expect(JSON.parse(lines(plain.stdout)[0]!)).not.toHaveProperty('redacted')
  })

  it('L-172 a pattern that is not a regular expression, one matching the empty string, or --redact with --no-redact is a usage error', async () => {
    const cases: [string[], string][] = [
      [['--redact', '('], 'logbook: invalid --redact pattern "(": Invalid regular expression: /(/g: Unterminated group [USAGE]'],
      [['--redact', 'x*'], 'logbook: --redact pattern "x*" matches the empty string [USAGE]'],
      [['--redact', 'x', '--no-redact'], 'logbook: --redact and --no-redact cannot be combined [USAGE]'],
    ]
    for (const [extra, message] of cases) {
      const run = await logbook(['export', 'leaky', '--format', 'markdown', ...extra], { cwd })
      expect(run.code).toBe(2)
      expect(lines(run.stderr)).toEqual([message])
      expect(run.stdout).toBe('')
    }
  })
})
