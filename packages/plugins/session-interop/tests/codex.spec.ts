import { TOOL_OUTCOME_UNKNOWN, type SessionEvent } from '@logbook/session'
import { describe, expect, it } from 'vitest'
import { importCodex, missingResultText } from '../src/index.ts'
import { createInStore, fixture, ofType, surface, transcript } from './helpers.ts'

const SID = '0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b'
const rollout = (...lines: unknown[]): string => lines.map(line => `${JSON.stringify(line)}\n`).join('')
const meta = (payload: Record<string, unknown>) => ({ timestamp: '2026-03-03T09:00:00.000Z', type: 'session_meta', payload })
const item = (payload: Record<string, unknown>) => ({ timestamp: '2026-03-03T09:00:01.000Z', type: 'response_item', payload })

describe('importCodex', () => {
  it('L-182 a rollout is one session: instructions as the system head, the conversation as the model saw it', async () => {
    const { sessions } = await importCodex({ path: fixture('codex.jsonl') })
    expect(sessions).toHaveLength(1)
    const { header, events, counts } = sessions[0]!
    expect(header).toMatchObject({ id: SID, cwd: '/home/dev/weather-app', importedFrom: { tool: 'codex', sourceId: SID } })
    expect(header.importedFrom?.leaf).toBeUndefined()
    expect(counts).toEqual({ events: events.length, turns: 3, toolCalls: 4 })
    expect(transcript(events)).toEqual([
      'system: Follow AGENTS.md: run the tests before you finish.',
      'user(codex): <environment_context>\n  <cwd>/home/dev/weather-app</cwd>\n  <approval_policy>on-request</approval_policy>\n</environment_context>',
      'user: Read README.md and main.py; the screenshot shows the bug. [image image/png]',
      'assistant: [thinking] **Reading both files**\n\nI\'ll cat them in parallel. | '
        + 'call shell call_A {"command":["cat","README.md"],"workdir":"/home/dev/weather-app"} | '
        + 'call shell call_B {"command":["cat","main.py"],"workdir":"/home/dev/weather-app"}',
      'tool call_A: # Weather app\nA CLI that prints the weather for a city.\n',
      'tool call_B: import sys\nprint(CITIES[sys.argv[2]])\n',
      'assistant: README describes the CLI; main.py indexes CITIES directly.',
      'user: Run it for Paris.',
      'assistant: call local_shell call_C {"type":"exec","command":["python","main.py","--city","Paris"],"working_directory":"/home/dev/weather-app"}',
      'tool call_C (error): Traceback (most recent call last):\nKeyError: \'Paris\'',
      'assistant: It fails with KeyError: Paris is not in CITIES.',
      'user: Add a test for it.',
      'assistant: call apply_patch call_D *** Begin Patch\n*** Add File: tests/test_main.py\n+def test_paris(): ...\n*** End Patch\n',
      `tool call_D (error): ${missingResultText('Codex')}`,
    ])
    await createInStore(sessions)
  })

  it('L-182 token_count prices the request before it; the model follows turn_context; reasoning without text is counted', async () => {
    const { sessions, report } = await importCodex({ path: fixture('codex.jsonl') })
    const messages = ofType(sessions[0]!.events, 'assistant/message') as SessionEvent<'assistant/message'>[]
    expect(messages.map(m => m.data.usage)).toEqual([
      { inputTokens: 2300, outputTokens: 90, cacheReadTokens: 1200, reasoningTokens: 40 },
      { inputTokens: 2600, outputTokens: 30, cacheReadTokens: 2200, reasoningTokens: 0 },
      { inputTokens: 2700, outputTokens: 25, cacheReadTokens: 2500, reasoningTokens: 0 },
      { inputTokens: 2900, outputTokens: 20, cacheReadTokens: 2600, reasoningTokens: 0 },
      { inputTokens: 900, outputTokens: 60, cacheReadTokens: 0, reasoningTokens: 10 },
    ])
    expect(messages.map(m => m.data.message.source.model)).toEqual(['gpt-5-codex', 'gpt-5-codex', 'gpt-5-codex', 'gpt-5-codex', 'gpt-5.1-codex'])
    const headers = ofType(sessions[0]!.events, 'request/header').map(e => (e.data as { reason: string }).reason)
    expect(headers).toEqual(['initial', 'change'])
    expect(report.skipped).toEqual({
      'event_msg:agent_message': 1, 'event_msg:context_compacted': 1, 'event_msg:task_complete': 1, 'event_msg:user_message': 1,
      'response_item:reasoning without readable text': 1, 'response_item:web_search_call': 1, world_state: 1,
    })
    expect(report.unknownTypes).toEqual(['world_state'])
  })

  it('L-185 compacted replaces everything after the system head; turn_aborted ends the last turn, its call closed', async () => {
    const { events } = (await importCodex({ path: fixture('codex.jsonl') })).sessions[0]!
    const start = ofType(events, 'compaction/start')[0]!
    expect(start.data).toMatchObject({ turn: null, trigger: 'pressure' })
    const view = surface(events)
    expect(view[0]).toBe('system: Follow AGENTS.md: run the tests before you finish.')
    expect(view[1]).toMatch(/^user\(compaction\): .*Summary: the user is fixing a KeyError/s)
    expect(view.slice(2)).toEqual(transcript(events).slice(-3))
    expect(ofType(events, 'turn/end').at(-1)!.data).toEqual({ turn: 3, reason: { kind: 'aborted', reason: { kind: 'user' } } })
    const closed = ofType(events, 'tool/result').at(-1) as SessionEvent<'tool/result'>
    expect(closed.data.error?.code).toBe(TOOL_OUTCOME_UNKNOWN)
    expect(events.at(-1)).toMatchObject({ type: 'session/title', data: { title: 'Weather CLI: KeyError' } })
  })

  it('L-182 a subagent rollout links to the thread that spawned it; a forked one to the thread it came from', async () => {
    const parent = '0199a1b2-0000-7000-8000-000000000001'
    const talk = [item({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] }),
      item({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'hello' }] })]
    const sub = await importCodex({ text: rollout(meta({ id: 'sub-1', cwd: '/w', source: { subagent: { thread_spawn: { parent_thread_id: parent, depth: 2 } } } }), ...talk) })
    expect(sub.sessions[0]!.header).toMatchObject({ id: 'sub-1', parentSession: parent, origin: 'subagent', delegationDepth: 2 })
    const fork = await importCodex({ text: rollout(meta({ id: 'fork-1', cwd: '/w', forked_from_id: parent }), ...talk) })
    expect(fork.sessions[0]!.header.parentSession).toBe(parent)
    expect(fork.sessions[0]!.header.origin).toBeUndefined()
  })

  it('L-182 a call output in content items and a custom tool output both answer their calls', async () => {
    const { sessions } = await importCodex({
      text: rollout(
        meta({ id: 'items-1' }),
        item({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'go' }] }),
        item({ type: 'function_call', name: 'view', arguments: '{}', call_id: 'c1' }),
        item({ type: 'custom_tool_call', name: 'patch', input: 'diff', call_id: 'c2' }),
        item({ type: 'function_call_output', call_id: 'c1', output: [{ type: 'input_text', text: 'seen' }] }),
        item({ type: 'custom_tool_call_output', call_id: 'c2', output: 'patched' }),
      ),
    })
    expect(transcript(sessions[0]!.events).slice(-2)).toEqual(['tool c1: seen', 'tool c2: patched'])
  })

  it('L-182 a refusal in the model\'s output is kept as a refusal part', async () => {
    const { sessions } = await importCodex({
      text: rollout(
        meta({ id: 'refuse-1' }),
        item({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'do something bad' }] }),
        item({ type: 'message', role: 'assistant', content: [{ type: 'refusal', refusal: 'I can\'t help with that.' }] }),
      ),
    })
    const reply = ofType(sessions[0]!.events, 'assistant/message')[0] as SessionEvent<'assistant/message'>
    expect(reply.data.message.content).toEqual([{ type: 'refusal', text: 'I can\'t help with that.' }])
    expect(reply.data.usageMissing).toBe(true)
  })
})
