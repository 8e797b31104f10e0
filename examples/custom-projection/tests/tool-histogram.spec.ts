import { Context } from '@deepseek-ai/cordis'
import SessionStore, { CallId, type Session, SessionId } from '@logbook/session'
import SessionProjections, { foldProjection, type ProjectionChange } from '@logbook/session-projection'
import { describe, expect, it } from 'vitest'
import * as histogram from '../src/index.ts'

function call(s: Session, id: string, name: string): void {
  s.append('tool/call', { turn: 1, step: 1, callId: CallId(id), name, arguments: '{}' })
}

describe('the tool-histogram example plugin', () => {
  it('counts tool calls per name in a real app, notifies changes, and leaves with its plugin', async () => {
    const app = new Context()
    await app.plugin(SessionStore)
    await app.plugin(SessionProjections)
    const fiber = await app.plugin(histogram)
    const changes: ProjectionChange[] = []
    app.sessionProjections.onChanged(change => {
      if (change.key === 'acme/tool-histogram') changes.push(change)
    })
    const s = app.sessions.create(SessionId('s'))
    s.append('turn/start', { turn: 1 })
    s.append('step/start', { turn: 1, step: 1 })
    call(s, 'c1', 'read_note')
    call(s, 'c2', 'read_note')
    s.append('step/end', { turn: 1, step: 1 })
    call(s, 'c3', 'deploy')

    expect(app.sessionProjections.snapshot(s).values['acme/tool-histogram']).toEqual({ read_note: 2, deploy: 1 })
    const state = app.sessionProjections.stateOf(s, 'acme/tool-histogram')
    expect(state?.read_note).toBe(2)
    expect(changes.map(c => [c.seq, c.view])).toEqual([
      [2, { read_note: 1 }], [3, { read_note: 2 }], [5, { read_note: 2, deploy: 1 }],
    ])
    expect(foldProjection({
      key: 'acme/tool-histogram', stateVersion: 1, stateSchema: { '~standard': { version: 1, validate: value => ({ value }) } },
      init: () => ({}), apply: (h: histogram.ToolHistogram, e) => (e.type === 'tool/call' ? { ...h, [e.data.name]: (h[e.data.name] ?? 0) + 1 } : h),
    }, s.events)).toEqual(state)

    await fiber.dispose()
    expect(app.sessionProjections.snapshot(s).values['acme/tool-histogram']).toBeUndefined()
  })
})
