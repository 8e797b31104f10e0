/**
 * The lock check before every write (02 §3.3 step 5) through the held lock file (session-lock.ts): whatever the lock
 * path names decides, exactly as reading it would — an in-place rewrite naming another owner is a lost lock, a
 * replacement holding this writer's own record is not — and the held descriptor is closed with the lock. Once the
 * lock's change time is trusted, a check is one `fstat` and reads no file (P-161).
 */
import { randomUUID } from 'node:crypto'
import * as fs from 'node:fs'
import { readlinkSync, readdirSync, statSync } from 'node:fs'
import { readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { encodeBatch } from '@logbook/session-persistence'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { hdr, turns } from './events.ts'
import { useRawBackend } from './raw-backend.ts'
import { CTIME_SETTLED_MS } from '../src/session-lock.ts'

// Counted, not changed: P-161 checks which calls an append's lock check makes.
vi.mock('node:fs', async (original) => {
  const real = await original<typeof import('node:fs')>()
  return { ...real, readSync: vi.fn(real.readSync), statSync: vi.fn(real.statSync), readFileSync: vi.fn(real.readFileSync) }
})

const signal = new AbortController().signal
const env = useRawBackend('none', 'logbook-jsonl-held-')

async function stored(id: string) {
  const token = await env.backend.lock(id, env.owner(), signal)
  const made = await env.backend.materialize(token, hdr(id), encodeBatch(turns(2), true), signal)
  const file = (await env.backend.locate(id, signal)) as string
  return { token, made, file, lockPath: join(env.root, '.locks', `${id}.lock`) }
}

/** Descriptors of this process open on `path` (Linux `/proc/self/fd`). */
function openOn(path: string): number {
  let n = 0
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`) === path) n++
    } catch {
      // closed while listing
    }
  }
  return n
}

describe('the lock check before a write (02 §3.3 step 5)', () => {
  it('a lock rewritten in place to name another owner is lost: SESSION_LOCKED lost, nothing written', async () => {
    const { token, made, file, lockPath } = await stored('inplace')
    const text = await readFile(lockPath, 'utf8')
    await writeFile(lockPath, text.replace(token.owner.ownerId, randomUUID())) // same inode, same length
    const before = await readFile(file)
    const error = await env.backend.append(token, { nextSeq: made.nextSeq, revision: made.revision }, encodeBatch(turns(1, 12, 3), true), signal)
      .catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'SESSION_LOCKED', details: { lost: true } })
    await expect(env.backend.verifyLock(token, signal)).rejects.toMatchObject({ code: 'SESSION_LOCKED', details: { lost: true } })
    expect(await readFile(file)).toEqual(before)
  })

  it('a lock replaced by another owner\'s lock is lost, though the replaced file still names this writer', async () => {
    const { token, made, file, lockPath } = await stored('taken')
    const text = await readFile(lockPath, 'utf8')
    await rm(lockPath)
    await writeFile(lockPath, text.replace(token.owner.ownerId, randomUUID()), { mode: 0o600 })
    const before = await readFile(file)
    const error = await env.backend.append(token, { nextSeq: made.nextSeq, revision: made.revision }, encodeBatch(turns(1, 12, 3), true), signal)
      .catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'SESSION_LOCKED', details: { lost: true } })
    expect(await readFile(file)).toEqual(before)
  })

  it('a lock replaced by a new file holding this writer\'s own record still holds', async () => {
    const { token, made, lockPath } = await stored('replaced')
    const text = await readFile(lockPath, 'utf8')
    await rm(lockPath)
    await writeFile(lockPath, text, { mode: 0o600 })
    const next = await env.backend.append(token, { nextSeq: made.nextSeq, revision: made.revision }, encodeBatch(turns(1, 12, 3), true), signal)
    expect(next.nextSeq).toBe(made.nextSeq + 6)
    await env.backend.verifyLock(token, signal)
  })

  it.runIf(process.platform === 'linux')('the lock file held open is closed by unlock and by close', async () => {
    const { token, lockPath } = await stored('fds')
    expect(openOn(lockPath)).toBe(1)
    await env.backend.unlock(token, signal)
    expect(openOn(lockPath)).toBe(0)
    const other = await stored('fds2')
    expect(openOn(other.lockPath)).toBe(1)
    await env.backend.close()
    expect(openOn(other.lockPath)).toBe(0)
  })
})

describe('P-161 the check once the lock\'s change time is trusted', () => {
  afterEach(() => {
    vi.restoreAllMocks()
  })

  /** A stored session whose lock change time a first append made trusted (run once the time has settled). */
  async function settled(id: string) {
    const s = await stored(id)
    const ctime = statSync(s.lockPath).ctimeMs
    const settle = ctime % 1000 === 0 ? CTIME_SETTLED_MS.wholeSecond : CTIME_SETTLED_MS.fine
    while (performance.timeOrigin + performance.now() < ctime + settle) await new Promise(resolve => setTimeout(resolve, 10))
    // A replaced Date.now (a virtual clock, as B4 runs under) does not decide the trust.
    vi.spyOn(Date, 'now').mockReturnValue(1_700_000_000_000)
    const first = await env.backend.append(s.token, { nextSeq: s.made.nextSeq, revision: s.made.revision }, encodeBatch(turns(1, 12, 3), true), signal)
    return { ...s, first }
  }

  it('P-161 an append reads neither the lock file nor the lock path: one fstat of the held descriptor answers', async () => {
    const { token, first } = await settled('fast')
    vi.mocked(fs.readSync).mockClear()
    vi.mocked(fs.statSync).mockClear()
    vi.mocked(fs.readFileSync).mockClear()
    const next = await env.backend.append(token, { nextSeq: first.nextSeq, revision: first.revision }, encodeBatch(turns(1, 18, 4), true), signal)
    expect(next.nextSeq).toBe(first.nextSeq + 6)
    expect(vi.mocked(fs.readSync)).not.toHaveBeenCalled()
    expect(vi.mocked(fs.statSync)).not.toHaveBeenCalled()
    expect(vi.mocked(fs.readFileSync)).not.toHaveBeenCalled()
  })

  it('P-161 an in-place rewrite naming another owner after that is still a lost lock: SESSION_LOCKED lost, nothing written', async () => {
    const { token, first, file, lockPath } = await settled('late')
    const text = await readFile(lockPath, 'utf8')
    const trusted = statSync(lockPath).ctimeMs
    // The rewrite must be a change the inode records: repeat it until its change time moved (one clock tick).
    const other = text.replace(token.owner.ownerId, randomUUID())
    do {
      await writeFile(lockPath, other)
      await new Promise(resolve => setTimeout(resolve, 2))
    } while (statSync(lockPath).ctimeMs === trusted)
    const before = await readFile(file)
    const error = await env.backend.append(token, { nextSeq: first.nextSeq, revision: first.revision }, encodeBatch(turns(1, 18, 4), true), signal)
      .catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'SESSION_LOCKED', details: { lost: true } })
    expect(await readFile(file)).toEqual(before)
  })

  it('P-161 the lock removed after that (breakLock) is a lost lock at the next append', async () => {
    const { token, first, file } = await settled('broken')
    await env.backend.breakLock('broken', token.owner.ownerId, signal)
    const before = await readFile(file)
    const error = await env.backend.append(token, { nextSeq: first.nextSeq, revision: first.revision }, encodeBatch(turns(1, 18, 4), true), signal)
      .catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'SESSION_LOCKED', details: { lost: true } })
    expect(await readFile(file)).toEqual(before)
  })
})
