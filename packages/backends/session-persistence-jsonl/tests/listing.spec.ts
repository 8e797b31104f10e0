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
