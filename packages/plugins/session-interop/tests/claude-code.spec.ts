import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { CHECKPOINT_PREAMBLE } from '@logbook/compaction'
import { TOOL_OUTCOME_UNKNOWN, type SessionEvent } from '@logbook/session'
import { describe, expect, it } from 'vitest'
import { importClaudeCode, missingResultText, type ImportResult } from '../src/index.ts'
import { createInStore, fixture, ofType, surface, transcript } from './helpers.ts'

const SID = '5d0c4f3e-2a1b-4c8d-9e7f-112233445566'
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='

async function imported(): Promise<ImportResult> {
  return importClaudeCode({ path: fixture('claude-code.jsonl') })
}

describe('importClaudeCode', () => {
  it('L-181 the main session ends at the summary\'s leaf, the older branch is a fork, the sidechain a subagent', async () => {
    const { sessions } = await imported()
    expect(sessions.map(s => [s.role, s.header.id, s.header.importedFrom?.leaf])).toEqual([
      ['main', SID, 'u5'], ['branch', `${SID}-branch-1`, 'a8'], ['subagent', `${SID}-agent-agent7`, 's-4'],
    ])
    const [main, branch, agent] = sessions
    expect(main!.header).toMatchObject({ cwd: '/home/dev/weather-app', importedFrom: { tool: 'claude-code', sourceId: SID } })
    expect(branch!.header).toMatchObject({ parentSession: SID, isSeeded: true, seedLength: branch!.inheritedEventCount })
    expect(agent!.header).toMatchObject({ parentSession: SID, origin: 'subagent', delegationDepth: 1 })
    expect(main!.counts).toEqual({ events: main!.events.length, turns: 3, toolCalls: 5 })
  })

  it('L-181 every session passes the session and compaction companions in a real store', async () => {
    const { sessions } = await imported()
    const stored = await createInStore(sessions)
    expect(stored.map(events => events.length)).toEqual(sessions.map(s => s.events.length))
  })

  it('L-181 the transcript is the source conversation, one assistant message per API response', async () => {
    const { sessions } = await imported()
    expect(transcript(sessions[0]!.events)).toEqual([
      'user: Show me the weather files and read both.',
      'assistant: [thinking] Two files: README.md and main.py. Read them in parallel. | I\'ll read both files. | '
        + 'call Read toolu_01 {"file_path":"/home/dev/weather-app/README.md"} | call Read toolu_02 {"file_path":"/home/dev/weather-app/main.py"}',
      'tool toolu_01: # Weather app\nA CLI that prints the weather for a city.',
      'tool toolu_02: import sys\nprint(CITIES[sys.argv[2]])',
      'assistant: README describes the CLI; main.py looks the city up in CITIES.',
      'user: Here is a screenshot of the bug. [image image/png]',
      'assistant: call Bash toolu_03 {"command":"python main.py --city Paris"}',
      'tool toolu_03 (error): Traceback (most recent call last):\nKeyError: \'Paris\'',
      'assistant: call Task toolu_05 {"description":"find KeyError handling","prompt":"Search the repo for KeyError handling","subagent_type":"general-purpose"}',
      'tool toolu_05: Found one place: main.py line 2 indexes CITIES without a check.',
      'assistant: The script fails with KeyError because Paris is not in CITIES.',
      'user: Actually, first add a test for the KeyError.',
      'assistant: Writing tests/test_main.py. | call Write toolu_04 {"file_path":"/home/dev/weather-app/tests/test_main.py","content":"def test_paris(): ..."}',
      'user: [Request interrupted by user for tool use]',
      `tool toolu_04 (error): ${missingResultText('Claude Code')}`,
    ])
    const usages = ofType(sessions[0]!.events, 'assistant/message').map(event => (event as SessionEvent<'assistant/message'>).data.usage)
    expect(usages[0]).toEqual({ inputTokens: 1200, outputTokens: 80, cacheReadTokens: 300, cacheWriteTokens: 50 })
    expect(usages).toHaveLength(6)
    const raws = ofType(sessions[0]!.events, 'assistant/message').map(event => (event as SessionEvent<'assistant/message'>).data.rawFinishReason)
    expect(raws).toEqual(['tool_use', 'end_turn', 'tool_use', 'tool_use', 'end_turn', 'tool_use'])
  })

  it('L-185 the compaction is the compaction plugin\'s bracket: the summary replaces the surface, the originals stay', async () => {
    const main = (await imported()).sessions[0]!.events
    const types = main.map(event => event.type)
    const start = types.indexOf('compaction/start' as SessionEvent['type'])
    expect(types.slice(start, start + 4)).toEqual(['compaction/start', 'compaction/summary', 'user/message', 'compaction/end'])
    expect(main[start]!.data).toMatchObject({ turn: null, trigger: 'manual' })
    const checkpoint = main[start + 2]! as SessionEvent<'user/message'> & { surfaceOp: unknown; sourceEventSeqs: number[] }
    expect(checkpoint.surfaceOp).toEqual({ op: 'replace', start: 1, end: 28 })
    expect(checkpoint.sourceEventSeqs.slice(0, 2)).toEqual([start, start + 1])
    expect(surface(main)[0]).toBe(`user(compaction): ${CHECKPOINT_PREAMBLE}\n\n<compacted-summary>\nThis session is being continued `
      + 'from a previous conversation that ran out of context. Summary: the user is fixing a KeyError in main.py of a weather CLI; '
      + 'README.md and main.py were read; Paris is missing from CITIES.\n</compacted-summary>')
    expect(surface(main).slice(1)).toEqual(transcript(main).slice(11))
  })

  it('L-184 the unanswered Write call is closed with a result saying the source had none; the turn was interrupted', async () => {
    const main = (await imported()).sessions[0]!.events
    const results = ofType(main, 'tool/result') as SessionEvent<'tool/result'>[]
    const synthetic = results.at(-1)! as SessionEvent<'tool/result'> & { sourceEventSeqs: number[] }
    expect(synthetic.data.error).toEqual({ name: 'ToolOutcomeUnknownError', code: TOOL_OUTCOME_UNKNOWN })
    expect(main[synthetic.sourceEventSeqs[0]!]!.data).toMatchObject({ callId: 'toolu_04', name: 'Write' })
    expect(ofType(main, 'turn/end').map(event => (event.data as { reason: { kind: string } }).reason.kind)).toEqual(['completed', 'completed', 'interrupted'])
    expect(results.find(result => result.data.message.source.callId === 'toolu_03')!.data.error).toEqual({ name: 'ToolError', code: 'TOOL_ERROR' })
  })

  it('L-181 the branch is the main session\'s own prefix up to the branch point, then its own turn', async () => {
    const [main, branch] = (await imported()).sessions
    const n = branch!.inheritedEventCount
    expect(branch!.events.slice(0, n)).toEqual(main!.events.slice(0, n))
    expect(branch!.events[n]).toMatchObject({ type: 'session/end-seed', seq: n, data: { inherited: true } })
    expect(main!.events[n - 1]!.type).toBe('compaction/end')
    expect(transcript(branch!.events).slice(-2)).toEqual(['user: Fix the KeyError.', 'assistant: I\'ll patch main.py to use CITIES.get.'])
  })

  it('L-181 the subagent session is the sidechain conversation', async () => {
    const agent = (await imported()).sessions[2]!
    expect(transcript(agent.events)).toEqual([
      'user: Search the repo for KeyError handling',
      'assistant: call Grep toolu_s1 {"pattern":"KeyError"}',
      'tool toolu_s1: main.py:2: print(CITIES[sys.argv[2]])',
      'assistant: Found one place: main.py line 2 indexes CITIES without a check.',
    ])
  })

  it('L-186 the image keeps its bytes as a data: URI pinned by size and SHA-256; thinking keeps its signature', async () => {
    const main = (await imported()).sessions[0]!.events
    const prompt = ofType(main, 'user/message')[1] as SessionEvent<'user/message'>
    const bytes = Buffer.from(PNG, 'base64')
    expect(prompt.data.content[1]).toEqual({
      type: 'image',
      image: { uri: `data:image/png;base64,${PNG}`, mediaType: 'image/png', bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') },
    })
    const first = ofType(main, 'assistant/message')[0] as SessionEvent<'assistant/message'>
    expect(first.data.message.source.replayState).toEqual({ thinkingSignatures: ['c2lnbmF0dXJlLTE='] })
  })

  it('L-181 the report counts what became no event by type, marks the unknown types, and the title is the summary', async () => {
    const { report, sessions } = await imported()
    expect(report).toEqual({
      tool: 'claude-code', file: fixture('claude-code.jsonl'), sourceId: SID, records: 30,
      skipped: { 'file-history-snapshot': 1, 'mystery-future-record': 1, 'queue-operation': 1, 'system:turn_duration': 1 },
      unknownTypes: ['mystery-future-record'], notes: [],
    })
    expect(sessions[0]!.events.at(-1)).toMatchObject({ type: 'session/title', ignorable: true, data: { title: 'Weather CLI: tests for the KeyError' } })
  })

  it('L-192 an explicit id names the main session and derives the others; text input works without a file', async () => {
    const text = readFileSync(fixture('claude-code.jsonl'), 'utf8')
    const { sessions, report } = await importClaudeCode({ text }, { id: 'weather' })
    expect(sessions.map(s => s.header.id)).toEqual(['weather', 'weather-branch-1', 'weather-agent-agent7'])
    expect(sessions[0]!.header.importedFrom).toEqual({ tool: 'claude-code', sourceId: SID, leaf: 'u5' })
    expect(report.file).toBeUndefined()
  })

  it('L-181 the same source imports to the same events twice', async () => {
    const [a, b] = [await imported(), await imported()]
    expect(JSON.stringify(a.sessions)).toBe(JSON.stringify(b.sessions))
  })
})
