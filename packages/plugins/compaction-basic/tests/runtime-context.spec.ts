import { isCompactionCheckpoint } from '@logbook/compaction'
import type { Session, SessionEvent } from '@logbook/session'
import { describe, expect, it } from 'vitest'
import { agent, boot, filler, ofType } from './helpers.ts'

const SUMMARY = 'Goal: ship it.'
const ENABLED = { runtimeContext: { enabled: true, instructionFiles: [], sections: { date: false } } }

function contexts(session: Session): SessionEvent<'user/message'>[] {
  return ofType(session, 'user/message').filter(e => e.data.source.kind === 'runtime-context')
}

describe('compaction and the runtime-context message', () => {
  it('L-127 a manual compaction that summarises the retained context message → the next turn injects it again, after the checkpoint', async () => {
    const env = await boot({
      script: [{ match: { purpose: 'compaction' }, text: SUMMARY, repeat: true }, { text: 'ok', repeat: true }],
      loop: ENABLED,
    })
    const a = await agent(env)
    await a.send(filler(300))
    await a.send('second')
    expect(contexts(a.session)).toHaveLength(1)
    const result = await env.compaction.compactNow(a)
    expect(result!.shadowedSeqs).toContain(contexts(a.session)[0]!.seq)
    await a.send('third')
    const all = contexts(a.session)
    expect(all).toHaveLength(2)
    expect(all[1]!.data.content).toEqual(all[0]!.data.content)
    const s = a.session
    const visible = s.surface.nodes.map(seq => s.events[seq]!)
    expect(isCompactionCheckpoint(visible[0]!)).toBe(true)
    expect(visible.indexOf(all[1]!)).toBeGreaterThan(0)
    // The request after the compaction carries the re-injected context, exactly as logged.
    const last = env.requests.at(-1)!
    expect(last.messages.filter(m => m.role === 'user' && m.source.kind === 'runtime-context').map(m => m.content)).toEqual([all[1]!.data.content])
  })
})
