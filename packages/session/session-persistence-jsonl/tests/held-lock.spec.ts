/**
 * The lock check before every write (02 §3.3 step 5) through the held lock file (held-lock.ts): whatever the lock
 * path names decides, exactly as reading it would — an in-place rewrite naming another owner is a lost lock, a
 * replacement holding this writer's own record is not — and the held descriptor is closed with the lock.
 */
import { randomUUID } from 'node:crypto'
import { readlinkSync, readdirSync } from 'node:fs'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { encodeBatch, processStartOf, type LockOwner } from '@logbook/session-persistence'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { JsonlBackend } from '../src/jsonl-backend.ts'
import { hdr, turns } from './events.ts'

const signal = new AbortController().signal
let root: string
let backend: JsonlBackend
const owners: string[] = []
const registry = (): Set<string> => (globalThis as { [k: symbol]: Set<string> })[Symbol.for('logbook.persistence.owners')] ??= new Set()

function owner(): LockOwner {
  const o = { ownerId: randomUUID(), pid: process.pid, host: hostname(), processStart: processStartOf(process.pid), acquiredAt: Date.now() }
  registry().add(o.ownerId)
  owners.push(o.ownerId)
  return o
}

beforeEach(async () => {
  root = join(await mkdtemp(join(tmpdir(), 'logbook-jsonl-held-')), 'store')
  backend = new JsonlBackend(root, 'none')
  await backend.start(signal)
})
afterEach(async () => {
  await backend.close()
  for (const id of owners.splice(0)) registry().delete(id)
  await rm(join(root, '..'), { recursive: true, force: true })
})

async function stored(id: string) {
  const token = await backend.lock(id, owner(), signal)
  const made = await backend.materialize(token, hdr(id), encodeBatch(turns(2), true), signal)
  const file = (await backend.locate(id, signal)) as string
  return { token, made, file, lockPath: join(root, '.locks', `${id}.lock`) }
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
    const error = await backend.append(token, { nextSeq: made.nextSeq, revision: made.revision }, encodeBatch(turns(1, 12, 3), true), signal)
      .catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'SESSION_LOCKED', details: { lost: true } })
    await expect(backend.verifyLock(token, signal)).rejects.toMatchObject({ code: 'SESSION_LOCKED', details: { lost: true } })
    expect(await readFile(file)).toEqual(before)
  })

  it('a lock replaced by another owner\'s lock is lost, though the replaced file still names this writer', async () => {
    const { token, made, file, lockPath } = await stored('taken')
    const text = await readFile(lockPath, 'utf8')
    await rm(lockPath)
    await writeFile(lockPath, text.replace(token.owner.ownerId, randomUUID()), { mode: 0o600 })
    const before = await readFile(file)
    const error = await backend.append(token, { nextSeq: made.nextSeq, revision: made.revision }, encodeBatch(turns(1, 12, 3), true), signal)
      .catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'SESSION_LOCKED', details: { lost: true } })
    expect(await readFile(file)).toEqual(before)
  })

  it('a lock replaced by a new file holding this writer\'s own record still holds', async () => {
    const { token, made, lockPath } = await stored('replaced')
    const text = await readFile(lockPath, 'utf8')
    await rm(lockPath)
    await writeFile(lockPath, text, { mode: 0o600 })
    const next = await backend.append(token, { nextSeq: made.nextSeq, revision: made.revision }, encodeBatch(turns(1, 12, 3), true), signal)
    expect(next.nextSeq).toBe(made.nextSeq + 6)
    await backend.verifyLock(token, signal)
  })

  it.runIf(process.platform === 'linux')('the lock file held open is closed by unlock and by close', async () => {
    const { token, lockPath } = await stored('fds')
    expect(openOn(lockPath)).toBe(1)
    await backend.unlock(token, signal)
    expect(openOn(lockPath)).toBe(0)
    const other = await stored('fds2')
    expect(openOn(other.lockPath)).toBe(1)
    await backend.close()
    expect(openOn(other.lockPath)).toBe(0)
  })
})
