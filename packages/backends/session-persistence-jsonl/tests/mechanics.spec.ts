import { closeSync, openSync, writeFileSync } from 'node:fs'
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ensureDir, publishNewFile, replaceFile } from '../src/durable-fs.ts'
import { encodeId, projectKey, StoreLayout } from '../src/layout.ts'
import { readLines } from '../src/line-reader.ts'
import {
  acquireLockFile,
  breakLockFile,
  parseLockRecord,
  readLockFile,
  releaseLockFile,
  type LockRecord,
} from '../src/lock-file.ts'
import { createStoreFile, readStoreState } from '../src/store-identity.ts'

/** Test liveness: a holder is alive while its owner id is registered (all test holders are this process). */
const isDead = (holder: LockRecord): boolean => !owners().has(holder.ownerId)

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'logbook-jsonl-mech-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

const OWNERS = Symbol.for('logbook.persistence.owners')
function owners(): Set<string> {
  const g = globalThis as Record<symbol, unknown>
  if (!(g[OWNERS] instanceof Set)) g[OWNERS] = new Set<string>()
  return g[OWNERS] as Set<string>
}

function record(ownerId: string, over: Partial<LockRecord> = {}): LockRecord {
  return {
    v: 1,
    sessionId: 's',
    ownerId,
    pid: process.pid,
    host: hostname(),
    processStart: null,
    acquiredAt: 1,
    ...over,
  }
}

describe('project keys and encoded ids', () => {
  it('maps separators and foreign characters and suffixes a hash', () => {
    const key = projectKey('/home/u/my proj:x')
    expect(key).toMatch(/^home-u-my_proj-x-[0-9a-f]{12}$/)
    expect(projectKey('/')).toMatch(/^root-[0-9a-f]{12}$/)
    expect(projectKey('/.hidden/x')).toMatch(/^_hidden-x-[0-9a-f]{12}$/)
    expect(projectKey(undefined)).toBe('_no-cwd')
    expect(projectKey('/X')).not.toBe(projectKey('/x'))
    expect(projectKey('/a/b-c')).not.toBe(projectKey('/a-b/c'))
    expect(projectKey(`/${'a'.repeat(300)}`)).toHaveLength(100 + 13)
    expect(projectKey('C:\\\\Users\\me')).toMatch(/^C-Users-me-[0-9a-f]{12}$/)
  })

  it('encodes upper case injectively and bounds long ids to 64 characters', () => {
    expect(encodeId('A.b')).toBe('~a.b')
    expect(encodeId('a.B')).toBe('a.~b')
    const long = 'A'.repeat(128)
    const encoded = encodeId(long)
    expect(encoded).toHaveLength(64)
    expect(encoded).toMatch(/^(~a){23}~~[0-9a-f]{16}$/)
    expect(encodeId('B'.repeat(128))).not.toBe(encoded)
  })
})

describe('durable file primitives', () => {
  it('creates missing directories 0700 and publishes without overwriting', async () => {
    const deep = join(dir, 'a', 'b', 'c')
    await ensureDir(deep, 'fsync')
    expect((await stat(deep)).mode & 0o777).toBe(0o700)
    expect((await stat(join(dir, 'a'))).mode & 0o777).toBe(0o700)
    const target = join(deep, 'f')
    await publishNewFile(`${target}.t1.tmp`, target, Buffer.from('one'), 'fsync')
    expect((await stat(target)).mode & 0o777).toBe(0o600)
    await expect(publishNewFile(`${target}.t2.tmp`, target, Buffer.from('two'), 'fsync')).rejects.toMatchObject({ code: 'EEXIST' })
    expect(await readFile(target, 'utf8')).toBe('one')
    expect(await readdir(deep)).toEqual(['f'])
    await replaceFile(`${target}.t3.tmp`, target, Buffer.from('three'), 'none')
    expect(await readFile(target, 'utf8')).toBe('three')
    expect(await readdir(deep)).toEqual(['f'])
  })
})

describe('line reader', () => {
  it('splits lines across 64 KiB chunks with byte offsets and reports the fragment', async () => {
    const long = 'é'.repeat(70_000) // 140,000 bytes: spans three chunks
    const text = `a\n${long}\n\nb\ntail`
    const path = join(dir, 'lines')
    await writeFile(path, text)
    const fd = openSync(path, 'r')
    const lines: [string, number, boolean][] = []
    await readLines(fd, (buf, s, e, offset, complete) => {
      lines.push([buf.toString('utf8', s, e), offset, complete])
    })
    closeSync(fd)
    const longBytes = Buffer.byteLength(long)
    expect(lines).toEqual([
      ['a', 0, true],
      [long, 2, true],
      ['', 3 + longBytes, true],
      ['b', 4 + longBytes, true],
      ['tail', 6 + longBytes, false],
    ])
  })
})

describe('lock file', () => {
  it('acquires, refuses a live holder, takes over a dead one, releases only its own', async () => {
    const path = join(dir, 's.lock')
    owners().add('A')
    owners().add('B')
    try {
      expect(await acquireLockFile(path, record('A'), 'fsync', isDead)).toEqual({ ok: true })
      expect((await stat(path)).mode & 0o777).toBe(0o600)
      const refused = await acquireLockFile(path, record('B'), 'fsync', isDead)
      expect(refused).toMatchObject({ ok: false, holder: { ownerId: 'A' } })
      owners().delete('A') // A's coordinator is gone: its lock is a leftover of this pid
      expect(await acquireLockFile(path, record('B'), 'none', isDead)).toEqual({ ok: true })
      expect((await readLockFile(path))?.ownerId).toBe('B')
      expect(await releaseLockFile(path, 'A')).toBe(false)
      expect(await releaseLockFile(path, 'B')).toBe(true)
      expect(await readLockFile(path)).toBeUndefined()
      expect(await readdir(dir)).toEqual([])
    } finally {
      owners().delete('A')
      owners().delete('B')
    }
  })

  it('treats an unparsable lock as held and breaks it only with a null owner', async () => {
    const path = join(dir, 's.lock')
    await writeFile(path, 'not json')
    owners().add('C')
    try {
      expect(await acquireLockFile(path, record('C'), 'none', isDead)).toEqual({ ok: false, holder: null })
      expect(await breakLockFile(path, 'C')).toMatchObject({ outcome: 'mismatch', holder: null })
      expect(await breakLockFile(path, null)).toEqual({ outcome: 'removed' })
      expect(await breakLockFile(path, null)).toEqual({ outcome: 'absent' })
      expect(parseLockRecord('{"v":1}')).toBeNull()
    } finally {
      owners().delete('C')
    }
  })

  it('never lets two racing takers of one dead lock both hold it', async () => {
    const path = join(dir, 's.lock')
    for (let round = 0; round < 50; round++) {
      await writeFile(path, JSON.stringify(record(`dead-${round}`)))
      const takers = ['T1', 'T2', 'T3'].map((t) => `${t}-${round}`)
      takers.forEach((t) => owners().add(t))
      const results = await Promise.all(takers.map((t) => acquireLockFile(path, record(t), 'none', isDead)))
      const winners = results.filter((r) => r.ok)
      expect(winners).toHaveLength(1)
      const holder = await readLockFile(path)
      expect(takers).toContain(holder?.ownerId)
      takers.forEach((t) => owners().delete(t))
      await rm(path)
      expect(await readdir(dir)).toEqual([])
    }
  })
})

describe('store identity file', () => {
  it('P-059 session files that appear with an identity file another process just published are read as ready', async () => {
    const real = new StoreLayout(join(dir, 'race'))
    await ensureDir(join(real.root, 'p-1', 's'), 'none')
    await writeFile(join(real.root, 'p-1', 's', 'session.jsonl'), '{}\n')
    const published = JSON.stringify({ format: 'logbook-jsonl', layout: 1, storeId: 'other-process' })
    // The other process publishes its identity file (then its session file) right after this one first looked.
    let reads = 0
    const racing = Object.create(real, {
      storeFile: {
        get: () => {
          if (++reads === 2) writeFileSync(real.storeFile, published)
          return real.storeFile
        },
      },
    }) as StoreLayout
    expect(await readStoreState(racing)).toEqual({ kind: 'ready', storeId: 'other-process' })
  })

  it('classifies missing, pristine, ready, foreign and incompatible roots', async () => {
    const layout = new StoreLayout(join(dir, 'root'))
    expect(await readStoreState(layout)).toEqual({ kind: 'missing-root' })
    await writeFile(layout.root, 'x')
    expect(await readStoreState(layout)).toEqual({ kind: 'not-a-directory' })
    await rm(layout.root)
    await ensureDir(layout.root, 'none')
    expect(await readStoreState(layout)).toEqual({ kind: 'pristine' })
    const created = await createStoreFile(layout, 'none')
    expect(created.kind).toBe('ready')
    expect(await readStoreState(layout)).toEqual(created)
    expect(await createStoreFile(layout, 'none')).toEqual(created) // second creator reads the first's
    await writeFile(layout.storeFile, JSON.stringify({ format: 'other', layout: 1, storeId: 'x' }))
    expect(await readStoreState(layout)).toMatchObject({ kind: 'foreign' })
    await writeFile(layout.storeFile, JSON.stringify({ format: 'logbook-jsonl', layout: 2, storeId: 'x' }))
    expect(await readStoreState(layout)).toMatchObject({ kind: 'incompatible', direction: 'newer' })
    await rm(layout.storeFile)
    await ensureDir(join(layout.root, 'p-1', 's'), 'none')
    await writeFile(join(layout.root, 'p-1', 's', 'session.jsonl'), '{}\n')
    expect(await readStoreState(layout)).toMatchObject({ kind: 'incompatible', direction: null })
  })
})
