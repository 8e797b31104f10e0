/**
 * The lock check before every write (02 §3.3 step 5) through the held lock file (session-lock.ts): whatever the lock
 * path names decides, exactly as reading it would — an in-place rewrite naming another owner is a lost lock, a
 * replacement holding this writer's own record is not — and the held descriptor is closed with the lock.
 */
import { randomUUID } from 'node:crypto'
import { readlinkSync, readdirSync } from 'node:fs'
import { readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { encodeBatch } from '@logbook/session-persistence'
import { describe, expect, it } from 'vitest'
import { hdr, turns } from './events.ts'
import { useRawBackend } from './raw-backend.ts'

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
