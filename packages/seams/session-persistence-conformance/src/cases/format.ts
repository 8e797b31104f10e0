/** Format versions and unknown event types (spec 02 §1.7, §4.1 check order): P-081–P-084. */

import { expect, it } from 'vitest'
import { SESSION_FORMAT_VERSION, SUPPORTED_SESSION_FORMAT_VERSIONS } from '@logbook/session'
import type { SessionFormatUnsupportedError } from '@logbook/session-persistence'
import { useHarness, type Mount } from '../harness.ts'
import { completeTurn, event, header } from '../events.ts'
import { expectLossless, listed, rejects } from '../expect.ts'
import type { ConformanceOptions } from '../types.ts'
import { itUnless } from './it-unless.ts'

const UNKNOWN_TYPE_TEXT = 'unknown to this build (written by a newer Logbook or a plugin that is not loaded)'

/** Every read path and open(write) refuse `id` with SESSION_FORMAT_UNSUPPORTED, changing nothing; returns one error. */
async function refusedFormat(m: Mount, id: string): Promise<SessionFormatUnsupportedError> {
  const before = await listed(m, id)
  const error = await rejects(m.persistence.open(id, 'write'), 'SESSION_FORMAT_UNSUPPORTED') as SessionFormatUnsupportedError
  for (const attempt of [m.persistence.open(id, 'read'), m.persistence.inspect(id), m.persistence.readFrom(id, 0)]) {
    const other = await rejects(attempt, 'SESSION_FORMAT_UNSUPPORTED')
    expect(other.message).toBe(error.message)
  }
  expect(await listed(m, id)).toEqual(before)
  expect(m.committed.filter(c => c.sessionId === id && c.source === 'repair')).toEqual([])
  return error
}

/** Register the `format` cases. */
export function formatCases(options: ConformanceOptions): void {
  const h = useHarness(options)
  const noDamage = options.capabilities.damage === null
  const S = SESSION_FORMAT_VERSION

  /** With `locate`, the message ends with ` (raw log: <location>)`; without, it names no raw log. */
  const expectRawLog = (error: SessionFormatUnsupportedError, location: string | undefined): void => {
    if (h.caps.locate) {
      expect(location).toBeTypeOf('string')
      expect(error.message.endsWith(` (raw log: ${location})`), error.message).toBe(true)
    } else {
      expect(error.message).not.toContain('(raw log:')
    }
  }

  itUnless(noDamage)('P-081 a header version above the supported one is SESSION_FORMAT_UNSUPPORTED newer, asking to upgrade, naming the raw log', async () => {
    const m = await h.mount()
    await m.store('s1', completeTurn(0, 1))
    const location = await m.persistence.locate('s1')
    await h.damage.setHeaderField('s1', 'version', S + 1)
    const error = await refusedFormat(m, 's1')
    expect(error).toMatchObject({ direction: 'newer', found: S + 1, supported: S, sessionId: 's1' })
    expect(error.message).toMatch(/newer.*upgrade/)
    expect(error.message).toContain(`written by a newer Logbook (format ${S + 1}, this build reads ${S}): upgrade Logbook`)
    expectRawLog(error, location)
  })

  itUnless(noDamage)('P-082 a header version below the oldest readable one is older with no upgrade path; a future version with an invalid header is still FORMAT_UNSUPPORTED', async () => {
    const m = await h.mount()
    await m.store('s1', completeTurn(0, 1))
    const location = await m.persistence.locate('s1')
    const oldest = SUPPORTED_SESSION_FORMAT_VERSIONS[0]!
    await h.damage.setHeaderField('s1', 'version', oldest - 1)
    const older = await refusedFormat(m, 's1')
    expect(older).toMatchObject({ direction: 'older', found: oldest - 1, supported: S })
    expect(older.message).toMatch(/no upgrade path/)
    expect(older.message).toContain(`format ${oldest - 1}, older than ${oldest}; there is no upgrade path`)
    expectRawLog(older, location)
    await m.store('s2', completeTurn(0, 1))
    await h.damage.setHeaderField('s2', 'version', S + 7)
    await h.damage.setHeaderField('s2', 'createdAt', 'not a time')
    await h.damage.setHeaderField('s2', 'futureField', { x: 1 })
    const newer = await refusedFormat(m, 's2')
    expect(newer).toMatchObject({ direction: 'newer', found: S + 7 })
  })

  itUnless(noDamage)('P-083 a stored future/event is FORMAT_UNSUPPORTED naming it and nothing is cut despite a torn tail (where records tear); an ignorable one is kept', async () => {
    const m = await h.mount()
    await m.store('s1', completeTurn(0, 1))
    const location = await m.persistence.locate('s1')
    await h.damage.appendRawRecord('s1', JSON.stringify(event('future/event', 6, { x: 1 })))
    await h.damage.appendRawRecord('s1', JSON.stringify(event('turn/start', 7, { turn: 2 })))
    const length = await h.damage.tearLastRecord('s1', Number.MAX_SAFE_INTEGER)
    const keep = h.caps.tornTail ? Math.floor(length / 2) : length
    await h.damage.tearLastRecord('s1', keep)
    const error = await refusedFormat(m, 's1')
    expect(error).toMatchObject({ direction: 'newer', found: 'future/event', supported: S })
    expect(error.message).toContain(`contains event type future/event ${UNKNOWN_TYPE_TEXT}`)
    expectRawLog(error, location)
    expect(await h.damage.tearLastRecord('s1', Number.MAX_SAFE_INTEGER)).toBe(keep)
    await m.store('s2', completeTurn(0, 1))
    const kept = event('future/event', 6, { note: 'kept verbatim', n: [1, 2] }, { ignorable: true })
    await h.damage.appendRawRecord('s2', JSON.stringify(kept))
    const handle = await m.persistence.open('s2', 'write')
    expect(handle.nextSeq).toBe(7)
    expectLossless(await handle.read(6), [kept])
    await handle.append(completeTurn(7, 2))
    await handle.close()
  })

  it('P-118 headers of every supported format version are read, listed and resumed; a resumed session keeps its version', async () => {
    const m = await h.mount()
    const importedFrom = { tool: 'codex', file: 'rollout.jsonl', sourceId: 'src-1' }
    for (const version of SUPPORTED_SESSION_FORMAT_VERSIONS) {
      const id = `v${version}`
      const stored = header(id, version === S ? { version, importedFrom } : { version })
      const handle = await m.persistence.create(stored)
      await handle.append(completeTurn(0, 1))
      await handle.close()
      const reader = await m.persistence.open(id, 'read')
      expectLossless(reader.header, stored)
      await reader.close()
      expectLossless((await m.persistence.inspect(id)).header, stored)
      expect((await listed(m, id))?.eventCount).toBe(6)
      const writer = await m.persistence.open(id, 'write')
      await writer.append(completeTurn(6, 2))
      expect(writer.header.version).toBe(version)
      await writer.close()
      const after = await m.persistence.inspect(id)
      expectLossless(after.header, stored)
      expect(after.events).toHaveLength(12)
    }
  })

  it('P-084 a type registered by a plugin loads; with that plugin unloaded the log is refused', async () => {
    const m = await h.mount()
    const plugin = m.app.plugin({
      name: 'conformance-types',
      inject: ['sessions'],
      apply: (ctx: { sessions: { registerEventType(type: string): () => void } }) => { ctx.sessions.registerEventType('conformance/custom') },
    })
    await plugin
    const custom = event('conformance/custom', 6, { k: 'v' })
    const handle = await m.persistence.create(header('s1'))
    await handle.append([...completeTurn(0, 1), custom])
    await handle.close()
    const reader = await m.persistence.open('s1', 'read')
    expectLossless(await reader.read(6), [custom])
    await reader.close()
    await plugin.dispose()
    const error = await refusedFormat(m, 's1')
    expect(error).toMatchObject({ direction: 'newer', found: 'conformance/custom' })
    expect(error.message).toContain(`contains event type conformance/custom ${UNKNOWN_TYPE_TEXT}`)
    const other = await m.persistence.create(header('s2'))
    await rejects(other.append([event('conformance/custom', 0, { k: 'v' })]), 'INVALID_ARGUMENT')
    await other.close()
  })
}
