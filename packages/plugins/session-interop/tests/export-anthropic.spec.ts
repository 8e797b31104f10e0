import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { exportAnthropicMessages, importClaudeCode, importCodex, missingResultText } from '../src/index.ts'
import { fixture } from './helpers.ts'

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='

/** The Claude Code fixture up to the end of its second turn (before the compaction). */
async function beforeCompaction() {
  const lines = readFileSync(fixture('claude-code.jsonl'), 'utf8').split('\n')
  const end = lines.findIndex(line => line.includes('"queue-operation"'))
  return (await importClaudeCode({ text: `${lines.slice(0, end).join('\n')}\n` })).sessions[0]!
}

describe('exportAnthropicMessages', () => {
  it('L-190 the surface as a Messages request: thinking with its signature, tool_use and tool_result, images as base64', async () => {
    const session = await beforeCompaction()
    const body = exportAnthropicMessages(session.events)
    expect(body.model).toBe('claude-sonnet-4-5-20250929')
    expect(body.system).toBeUndefined()
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Show me the weather files and read both.' }] },
      { role: 'assistant', content: [
        { type: 'thinking', thinking: 'Two files: README.md and main.py. Read them in parallel.', signature: 'c2lnbmF0dXJlLTE=' },
        { type: 'text', text: 'I\'ll read both files.' },
        { type: 'tool_use', id: 'toolu_01', name: 'Read', input: { file_path: '/home/dev/weather-app/README.md' } },
        { type: 'tool_use', id: 'toolu_02', name: 'Read', input: { file_path: '/home/dev/weather-app/main.py' } },
      ] },
      { role: 'user', content: [
        { type: 'tool_result', tool_use_id: 'toolu_01', content: [{ type: 'text', text: '# Weather app\nA CLI that prints the weather for a city.' }] },
        { type: 'tool_result', tool_use_id: 'toolu_02', content: [{ type: 'text', text: 'import sys\nprint(CITIES[sys.argv[2]])' }] },
      ] },
      { role: 'assistant', content: [{ type: 'text', text: 'README describes the CLI; main.py looks the city up in CITIES.' }] },
      { role: 'user', content: [
        { type: 'text', text: 'Here is a screenshot of the bug.' },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
      ] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_03', name: 'Bash', input: { command: 'python main.py --city Paris' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_03', content: [{ type: 'text', text: 'Traceback (most recent call last):\nKeyError: \'Paris\'' }], is_error: true }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_05', name: 'Task', input: { description: 'find KeyError handling', prompt: 'Search the repo for KeyError handling', subagent_type: 'general-purpose' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_05', content: [{ type: 'text', text: 'Found one place: main.py line 2 indexes CITIES without a check.' }] }] },
      { role: 'assistant', content: [{ type: 'text', text: 'The script fails with KeyError because Paris is not in CITIES.' }] },
    ])
  })

  it('L-190 consecutive user messages merge, tool results first; the system head goes to system', async () => {
    const main = (await importClaudeCode({ path: fixture('claude-code.jsonl') })).sessions[0]!
    const body = exportAnthropicMessages(main.events)
    expect(body.messages.map(message => [message.role, message.content.map(block => block.type)])).toEqual([
      ['user', ['text', 'text']],
      ['assistant', ['text', 'tool_use']],
      ['user', ['tool_result', 'text']],
    ])
    expect(body.messages[2]!.content[0]).toEqual({ type: 'tool_result', tool_use_id: 'toolu_04', content: [{ type: 'text', text: missingResultText('Claude Code') }], is_error: true })
    const codex = (await importCodex({ path: fixture('codex.jsonl') })).sessions[0]!
    const withSystem = exportAnthropicMessages(codex.events)
    expect(withSystem.system).toBe('Follow AGENTS.md: run the tests before you finish.')
    expect(withSystem.model).toBe('gpt-5.1-codex')
    expect(withSystem.messages[0]!.role).toBe('user')
  })

  it('L-190 arguments that are not a JSON object are kept under "arguments"', async () => {
    const codex = (await importCodex({ path: fixture('codex.jsonl') })).sessions[0]!
    const body = exportAnthropicMessages(codex.events)
    const patch = body.messages.flatMap(message => message.content).find(block => block.type === 'tool_use')
    expect(patch).toEqual({ type: 'tool_use', id: 'call_D', name: 'apply_patch', input: { arguments: '*** Begin Patch\n*** Add File: tests/test_main.py\n+def test_paris(): ...\n*** End Patch\n' } })
  })
})
