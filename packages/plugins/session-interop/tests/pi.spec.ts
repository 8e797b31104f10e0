import type { SessionEvent } from '@logbook/session'
import { describe, expect, it } from 'vitest'
import { importPi, missingResultText } from '../src/index.ts'
import { createInStore, fixture, ofType, surface, transcript } from './helpers.ts'

const SID = '3f2a9c1e-7b6d-4e5f-9a8b-7c6d5e4f3a2b'
const lines = (...values: unknown[]): string => values.map(value => `${JSON.stringify(value)}\n`).join('')

describe('importPi', () => {
  it('L-183 the newest leaf is the session, the other leaf a fork at the compaction', async () => {
    const { sessions } = await importPi({ path: fixture('pi.jsonl') })
    expect(sessions.map(s => [s.role, s.header.id, s.header.importedFrom?.leaf])).toEqual([
      ['main', SID, 'e21'], ['branch', `${SID}-branch-1`, 'e15'],
    ])
    const [main, branch] = sessions
    expect(transcript(main!.events)).toEqual([
      'user: Read README.md and main.py.',
      'assistant: [thinking] Both files, in parallel. | call read toolu_p1 {"path":"README.md"} | call read toolu_p2 {"path":"main.py"}',
      'tool toolu_p1: # Weather app',
      'tool toolu_p2: print(CITIES[sys.argv[2]])',
      'assistant: main.py indexes CITIES directly.',
      'user: Here is the bug: [image image/png]',
      'assistant: call bash toolu_p3 {"command":"python main.py --city Paris"}',
      'tool toolu_p3 (error): KeyError: \'Paris\'',
      'assistant: Paris is missing from CITIES.',
      'user(pi): Reminder: the tests are not written yet.',
      'user(pi): Tried patching main.py directly; the user wants a test first.',
      'user: Add a test first.',
      'assistant: Writing tests/test_main.py. | call write toolu_p4 {"path":"tests/test_main.py","content":"def test_paris(): ..."}',
      `tool toolu_p4 (error): ${missingResultText('pi')}`,
    ])
    expect(transcript(branch!.events).slice(-2)).toEqual(['user: Fix it.', 'assistant: Patched main.py to use CITIES.get.'])
    expect(branch!.events.slice(0, branch!.inheritedEventCount)).toEqual(main!.events.slice(0, branch!.inheritedEventCount))
    await createInStore(sessions)
  })

  it('L-185 the compaction keeps the entries from firstKeptEntryId on the surface', async () => {
    const main = (await importPi({ path: fixture('pi.jsonl') })).sessions[0]!.events
    const view = surface(main)
    expect(view[0]).toMatch(/^user\(compaction\): .*The user is fixing a KeyError in main.py/s)
    expect(view.slice(1)).toEqual(transcript(main).slice(5))
    expect(ofType(main, 'compaction/summary')[0]!.data).toMatchObject({ maxTokens: 0, instructionVersion: 0, provider: 'anthropic', model: 'claude-sonnet-4-5' })
  })

  it('L-183 usage, stop reasons, the thinking signature and the title come from the entries', async () => {
    const { sessions, report } = await importPi({ path: fixture('pi.jsonl') })
    const main = sessions[0]!.events
    const first = ofType(main, 'assistant/message')[0] as SessionEvent<'assistant/message'>
    expect(first.data.usage).toEqual({ inputTokens: 800, outputTokens: 40, cacheReadTokens: 100, cacheWriteTokens: 20 })
    expect(first.data.message.source.replayState).toEqual({ thinkingSignatures: ['c2lnLXBp'] })
    expect(main.at(-1)!.data).toEqual({ title: 'Weather KeyError' })
    expect(ofType(main, 'turn/end').map(e => (e.data as { reason: { kind: string } }).reason.kind)).toEqual(['completed', 'completed', 'interrupted'])
    expect(report.skipped).toEqual({ label: 1, model_change: 1, mystery_entry: 1, thinking_level_change: 1 })
    expect(report.unknownTypes).toEqual(['mystery_entry'])
  })

  it('L-183 a version 1 file (no ids) is a plain sequence; error and aborted stops end their turns so', async () => {
    const { sessions } = await importPi({
      text: lines(
        { type: 'session', id: 'v1', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/w' },
        { type: 'message', timestamp: '2026-01-01T00:00:01.000Z', message: { role: 'user', content: 'one' } },
        { type: 'message', timestamp: '2026-01-01T00:00:02.000Z', message: { role: 'assistant', content: [], provider: 'p', model: 'm', stopReason: 'error', errorMessage: 'overloaded' } },
        { type: 'message', timestamp: '2026-01-01T00:00:03.000Z', message: { role: 'user', content: 'two' } },
        { type: 'message', timestamp: '2026-01-01T00:00:04.000Z', message: { role: 'assistant', content: [{ type: 'text', text: 'par' }], provider: 'p', model: 'm', stopReason: 'aborted' } },
      ),
    })
    expect(sessions).toHaveLength(1)
    const replies = ofType(sessions[0]!.events, 'assistant/message') as SessionEvent<'assistant/message'>[]
    expect(replies.map(reply => [reply.data.usageMissing, reply.data.rawFinishReason])).toEqual([[true, 'error'], [true, 'aborted']])
    expect(ofType(sessions[0]!.events, 'turn/end').map(e => e.data)).toEqual([
      { turn: 1, reason: { kind: 'error', error: { message: 'overloaded', code: 'IMPORTED_ERROR' } } },
      { turn: 2, reason: { kind: 'aborted', reason: { kind: 'user' } } },
    ])
  })
})
