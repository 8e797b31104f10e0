/** `readFrom` (spec 02 §1.1): P-017. */

import { expect, it } from 'vitest'
import { useHarness } from '../harness.ts'
import { completeTurns } from '../events.ts'
import { expectDeepFrozen, expectLossless, rejects } from '../expect.ts'
import type { ConformanceOptions } from '../types.ts'

/** Register the `read-from` cases. */
export function readFromCases(options: ConformanceOptions): void {
  const h = useHarness(options)

  it('P-017 readFrom: 0 gives all, 3 from seq 3, n and n+100 nothing; -1 and 1.5 INVALID_ARGUMENT; missing NOT_FOUND; deep-frozen', async () => {
    const m = await h.mount()
    const events = completeTurns(2)
    await m.store('s1', events)
    const all = await m.persistence.readFrom('s1', 0)
    expectLossless(all, events)
    expectDeepFrozen(all)
    expectLossless(await m.persistence.readFrom('s1', 3), events.slice(3))
    expect(await m.persistence.readFrom('s1', 12)).toEqual([])
    expect(await m.persistence.readFrom('s1', 112)).toEqual([])
    for (const from of [11, 6, 5, 1]) expectLossless(await m.persistence.readFrom('s1', from), events.slice(from))
    for (const bad of [-1, 1.5, Number.NaN, Number.MAX_SAFE_INTEGER + 1, '1' as unknown as number]) {
      await rejects(m.persistence.readFrom('s1', bad), 'INVALID_ARGUMENT')
    }
    await rejects(m.persistence.readFrom('missing', 0), 'SESSION_NOT_FOUND')
    expect((await m.persistence.inspect('s1')).claim).toBe('none')
  })
}
