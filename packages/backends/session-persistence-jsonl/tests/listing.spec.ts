/** A listing never aborts (02 §5 "List"; P-152): every entry that cannot be read is one problem, the rest is listed. */
import { mkdir, readFile, rm, symlink, truncate, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { projectKey } from '../src/layout.ts'
import { hdr, turns } from './events.ts'
import { JsonlApp, tempRoot } from './mount.ts'

let root: string
let cleanup: () => Promise<void>
let app: JsonlApp

beforeEach(async () => {
  ;({ root, cleanup } = await tempRoot())
  app = await JsonlApp.start(root)
})
afterEach(async () => {
  await app.stop()
  await cleanup()
})

async function store(id: string): Promise<string> {
  const handle = await app.persistence.create(hdr(id))
  await handle.append(turns(1))
  await handle.close()
  return (await app.persistence.locate(id))!
}

const project = (): string => join(root, projectKey(hdr('x').cwd))

describe('P-152 a listing never aborts', () => {
  it('P-152 a session.jsonl that is a directory, one that is a symlink loop and a stray file in a project folder are one problem each; the healthy sessions are listed', async () => {
    await store('healthy')
    await mkdir(join(project(), 'as-dir', 'session.jsonl'), { recursive: true })
    await mkdir(join(project(), 'looped'), { recursive: true })
    await symlink('session.jsonl', join(project(), 'looped', 'session.jsonl'))
    await writeFile(join(project(), 'README'), 'notes about this project\n')
    const page = await app.persistence.list()
    expect(page.items.map(i => i.id)).toEqual(['healthy'])
    const problems = page.problems.map(p => [p.location.slice(project().length + 1), p.sessionId ?? null, (p.error as { code?: string }).code]).sort()
    expect(problems).toEqual([
      ['README', null, 'STORE_IO'],
      ['as-dir/session.jsonl', 'as-dir', 'STORE_IO'],
      ['looped/session.jsonl', 'looped', 'STORE_IO'],
    ])
    expect(page.problems.map(p => p.error.message).sort()).toEqual([
      `${join(project(), 'README')} is not a session directory (ENOTDIR)`,
      `session "as-dir": cannot read the session file ${join(project(), 'as-dir', 'session.jsonl')} (EISDIR)`,
      `session "looped": cannot read the session file ${join(project(), 'looped', 'session.jsonl')} (ELOOP)`,
    ])
  })

  it('P-152 a store root replaced by a regular file is STORE_UNSAFE, not an empty listing', async () => {
    await store('s1')
    await rm(root, { recursive: true })
    await writeFile(root, 'not a directory')
    await expect(app.persistence.list()).rejects.toMatchObject({ code: 'STORE_UNSAFE', message: expect.stringContaining('is not a directory') })
  })

  it('P-152 a problem says "the session file is empty" only for an empty file', async () => {
    const empty = await store('empty')
    await truncate(empty, 0)
    const noNewline = await store('no-newline')
    await writeFile(noNewline, (await readFile(noNewline, 'utf8')).split('\n')[0]!)
    const page = await app.persistence.list()
    const detail = (id: string): string | undefined =>
      (page.problems.find(p => p.sessionId === id)?.error as { detail?: string } | undefined)?.detail
    expect(detail('empty')).toBe('the session file is empty')
    expect(detail('no-newline')).toBe('the header line is not terminated by a newline')
    expect(dirname(empty)).not.toBe(dirname(noNewline))
  })
})

describe('P-169 a repeated listing decodes only what changed', () => {
  const summaries = async () => (await app.persistence.list()).items.map(s => [s.id, s.eventCount, s.updatedAt, s.revision])

  it('P-169 an append, a same-size change of the header or last record, a deleted and a new session are all seen by the next listing', async () => {
    const files = { a: await store('a'), b: await store('b'), c: await store('c'), d: await store('d') }
    const before = await summaries()
    expect(before.map(s => s[0]).sort()).toEqual(['a', 'b', 'c', 'd'])
    // a: appended to (a new last line); b: one digit of its header changed, same size; c: deleted; e: new.
    const handle = await app.persistence.open('a', 'write')
    await handle.append(turns(1, handle.nextSeq, 2))
    await handle.close()
    const bytes = await readFile(files.b, 'utf8')
    await writeFile(files.b, bytes.replace('"createdAt":1', '"createdAt":2'))
    await rm(dirname(files.c), { recursive: true })
    await store('e')
    const page = await app.persistence.list()
    expect(page.items.map(s => s.id).sort()).toEqual(['a', 'd', 'e'])
    expect(page.problems.map(p => [p.sessionId, p.error.message])).toEqual([
      ['b', expect.stringMatching(/^session "b": header checksum mismatch/)],
    ])
    const a = page.items.find(s => s.id === 'a')!
    const aBefore = before.find(s => s[0] === 'a')!
    expect(a.eventCount).toBe((aBefore[1] as number) * 2)
    expect(a.revision).not.toBe(aBefore[3])
    expect(a.revision).toBe((await app.persistence.open('a', 'read')).revision)
    // d is unchanged: the same summary as before.
    expect((await summaries()).find(s => s[0] === 'd')).toEqual(before.find(s => s[0] === 'd'))
  })

  it('P-169 a last record rewritten in place (same size, broken checksum) after a listing is a problem on the next first page', async () => {
    const file = await store('a')
    await store('b')
    expect((await app.persistence.list()).problems).toEqual([])
    const bytes = await readFile(file, 'utf8')
    const at = bytes.lastIndexOf('"completed"')
    await writeFile(file, `${bytes.slice(0, at)}"completes"${bytes.slice(at + '"completed"'.length)}`)
    const page = await app.persistence.list()
    expect(page.items.map(s => s.id)).toEqual(['b'])
    expect(page.problems.map(p => [p.sessionId, p.error.message])).toEqual([
      ['a', expect.stringMatching(/^session "a": the last record fails its check: checksum mismatch/)],
    ])
  })

  it('P-169 a walk served from the kept scan returns every session once, in order, with pages of the asked size', async () => {
    for (let i = 0; i < 7; i++) await store(`s${i}`)
    const seen: string[] = []
    let cursor: string | null | undefined
    while (cursor !== null) {
      const page = await app.persistence.list(cursor === undefined ? { limit: 3 } : { limit: 3, cursor })
      expect(page.items.length).toBe(page.nextCursor === null ? 1 : 3)
      seen.push(...page.items.map(s => s.id))
      cursor = page.nextCursor
    }
    const all = (await app.persistence.list({ limit: 50 })).items.map(s => s.id)
    expect(seen).toEqual(all)
    expect([...seen].sort()).toEqual(['s0', 's1', 's2', 's3', 's4', 's5', 's6'])
  })
})
