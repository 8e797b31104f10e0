import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { hostname } from 'node:os'
import { describe, expect, it } from 'vitest'
import type { LockOwner } from '../src/backend.ts'
import {
  claimLockedError,
  isHolderDead,
  lockLostError,
  mintOwner,
  ownerRegistry,
  processLockedError,
  processStartOf,
  releaseOwner,
} from '../src/owners.ts'

const linux = process.platform === 'linux'
const holder = (extra: Partial<LockOwner>): LockOwner =>
  ({ ownerId: 'o-1', pid: process.pid, host: hostname(), processStart: null, acquiredAt: 1, ...extra })

/** The pid of a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' })
  return Number(child.stdout)
}

describe('holder liveness (02 §3.2)', () => {
  it('this pid: alive while its owner id is registered in the process-global set, dead after release', () => {
    const owner = mintOwner(42)
    expect(owner).toMatchObject({ pid: process.pid, host: hostname(), acquiredAt: 42 })
    expect(owner.ownerId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect((globalThis as Record<symbol, unknown>)[Symbol.for('logbook.persistence.owners')]).toBe(ownerRegistry())
    expect(isHolderDead(owner)).toBe(false)
    releaseOwner(owner.ownerId)
    expect(isHolderDead(owner)).toBe(true)
  })

  it('another host is never dead, nor is an unparsable holder; a pid that exited is dead', () => {
    expect(isHolderDead(holder({ host: 'elsewhere.invalid', pid: deadPid() }))).toBe(false)
    expect(isHolderDead(null)).toBe(false)
    expect(isHolderDead(holder({ pid: deadPid() }))).toBe(true)
  })

  it.skipIf(!linux)('a live pid whose recorded processStart differs from the current one is dead (pid reuse); unknown is alive', () => {
    const start = processStartOf(process.ppid)
    expect(start).toMatch(/^\d+$/)
    expect(isHolderDead(holder({ pid: process.ppid, processStart: start }))).toBe(false)
    expect(isHolderDead(holder({ pid: process.ppid, processStart: null }))).toBe(false)
    expect(isHolderDead(holder({ pid: process.ppid, processStart: `${start}1` }))).toBe(true)
  })

  it.skipIf(!linux)('processStart is field 22 of /proc/<pid>/stat, counted after the last ")"; null for no such process', () => {
    const stat = readFileSync('/proc/self/stat', 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    expect(processStartOf(process.pid)).toBe(fields[22 - 3])
    expect(processStartOf(deadPid())).toBeNull()
  })
})

describe('SESSION_LOCKED shapes (02 §1.7)', () => {
  it('in-process, process and lost-lock errors carry details.holder as specified', () => {
    expect(claimLockedError('s1', 'retiring', 'cause')).toMatchObject({
      code: 'SESSION_LOCKED', sessionId: 's1', cause: 'cause', details: { holder: { scope: 'in-process', kind: 'retiring' } },
    })
    const other = holder({ host: 'elsewhere.invalid', pid: 7, ownerId: 'o-7', acquiredAt: 99 })
    expect(processLockedError('s1', other, '/x').details).toEqual({
      holder: { scope: 'process', pid: 7, host: 'elsewhere.invalid', ownerId: 'o-7', acquiredAt: 99, sameHost: false },
    })
    expect(processLockedError('s1', null).details).toEqual({
      holder: { scope: 'process', pid: null, host: null, ownerId: null, acquiredAt: null, sameHost: false },
    })
    expect(lockLostError('s1', undefined).details).toEqual({ lost: true })
    expect(lockLostError('s1', holder({})).details).toMatchObject({ lost: true, holder: { scope: 'process', sameHost: true } })
  })
})
