/** JSONL layout, store identity and file formats through the plugin (02 §5; P-095, P-098, P-099, P-100). */
import { cp, mkdir, readdir, readFile, stat, writeFile, appendFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { PREFIX_BYTES } from '../src/framing.ts'
import { encodeId, isEncodedAs, projectKey } from '../src/layout.ts'
import { jsonlDamage } from './damage.ts'
import { ev, hdr, openTurnWithChunks, turns } from './events.ts'
import { JsonlApp, tempRoot } from './mount.ts'

let root: string
let cleanup: () => Promise<void>
const apps: JsonlApp[] = []

async function mount(config: Record<string, unknown> = {}): Promise<JsonlApp> {
  const app = await JsonlApp.start(root, config)
  apps.push(app)
  return app
}

beforeEach(async () => {
  ;({ root, cleanup } = await tempRoot())
})
afterEach(async () => {
  for (const app of apps.splice(0).reverse()) await app.stop()
  await cleanup()
})

async function storeSession(app: JsonlApp, id: string, events = turns(1), extra: Record<string, unknown> = {}): Promise<string> {
  const handle = await app.persistence.create(hdr(id, extra))
  await handle.append(events)
  await handle.close()
  return (await app.persistence.locate(id)) as string
}

describe('P-095 paths, modes and the header line', () => {
  it('P-095 stores at root/<project-key(cwd)>/<encoded-id>/session.jsonl with 0700 directories and 0600 files', async () => {
    const app = await mount()
    const file = await storeSession(app, 'p95', turns(1), { cwd: '/home/me/My Project' })
    expect(file).toBe(join(root, projectKey('/home/me/My Project'), 'p95', 'session.jsonl'))
    expect(projectKey('/home/me/My Project')).toMatch(/^home-me-My_Project-[0-9a-f]{12}$/)
    for (const dir of [root, join(root, '.locks'), join(file, '..'), join(file, '..', '..')]) {
      expect((await stat(dir)).mode & 0o777, dir).toBe(0o700)
    }
    for (const f of [file, join(root, '.logbook-store.json')]) expect((await stat(f)).mode & 0o777, f).toBe(0o600)
  })

  it('P-095 ids A.b and a.B get distinct directories; a 128-character upper-case id round-trips', async () => {
    const app = await mount()
    const upper = await storeSession(app, 'A.b')
    const lower = await storeSession(app, 'a.B', turns(2))
    expect(upper).not.toBe(lower)
    expect(upper.split('/').at(-2)).toBe('~a.b')
    expect(lower.split('/').at(-2)).toBe('a.~b')
    const long = `X${'Y'.repeat(127)}`
    const file = await storeSession(app, long)
    expect(file.split('/').at(-2)).toBe(encodeId(long))
    expect(encodeId(long)).toHaveLength(64)
    const reopened = await mount()
    const handle = await reopened.persistence.open(long, 'read')
    expect(handle.header.id).toBe(long)
    expect(await handle.read()).toEqual(turns(1))
    expect(await (await reopened.persistence.open('A.b', 'read')).read()).toHaveLength(6)
    expect(await (await reopened.persistence.open('a.B', 'read')).read()).toHaveLength(12)
  })

  it('P-095 the header line starts type, version, incarnation, id, then the header fields in order', async () => {
    const app = await mount()
    const file = await storeSession(app, 'hdr', turns(1), { agentPreset: 'coder', origin: 'subagent' })
    const first = ((await readFile(file, 'utf8')).split('\n')[0] as string).slice(PREFIX_BYTES)
    expect(Object.keys(JSON.parse(first))).toEqual(['type', 'version', 'incarnation', 'id', 'framing', 'createdAt', 'cwd', 'agentPreset', 'origin'])
    expect(JSON.parse(first)).toMatchObject({ type: 'session', version: 1, id: 'hdr', framing: 2 })
  })

  it('P-095 an unknown header field → SESSION_CORRUPT, file unchanged', async () => {
    const app = await mount()
    const file = await storeSession(app, 'unk')
    await jsonlDamage(root).setHeaderField('unk', 'colour', 'red')
    const before = await readFile(file)
    await expect(app.persistence.open('unk', 'write')).rejects.toMatchObject({ code: 'SESSION_CORRUPT' })
    await expect(app.persistence.open('unk', 'read')).rejects.toMatchObject({ code: 'SESSION_CORRUPT' })
    expect(await readFile(file)).toEqual(before)
  })
})

describe('P-098 changed underneath and stored twice', () => {
  it('P-098 file grown externally → next append SESSION_CONFLICT, nothing written', async () => {
    const app = await mount()
    const handle = await app.persistence.create(hdr('grown'))
    await handle.append(turns(1))
    const file = (await app.persistence.locate('grown')) as string
    await appendFile(file, `${JSON.stringify(ev('x/y', 6, {}))}\n`)
    const before = await readFile(file)
    await expect(handle.append(turns(1, 6, 2))).rejects.toMatchObject({ code: 'SESSION_CONFLICT' })
    expect(await readFile(file)).toEqual(before)
    await handle.close()
  })

  it('P-098 an id stored in two project directories → SESSION_CORRUPT on open, nothing touched', async () => {
    const app = await mount()
    const file = await storeSession(app, 'twice')
    const copy = join(root, projectKey('/elsewhere'), 'twice')
    await cp(join(file, '..'), copy, { recursive: true })
    await expect(app.persistence.open('twice', 'read')).rejects.toMatchObject({ code: 'SESSION_CORRUPT' })
    await expect(app.persistence.open('twice', 'write')).rejects.toMatchObject({ code: 'SESSION_CORRUPT' })
    expect(await readdir(join(root, '.locks'))).toEqual([])
  })
})

describe('P-099 the store root', () => {
  it('P-099 root is a file → the plugin fails with STORE_UNSAFE', async () => {
    await mkdir(join(root, '..'), { recursive: true })
    await writeFile(root, 'not a directory')
    const error = await JsonlApp.start(root).catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'STORE_UNSAFE' })
  })

  it('P-099 missing root → empty list, reads find nothing, nothing is created', async () => {
    const app = await mount()
    expect(await app.persistence.list()).toEqual({ items: [], nextCursor: null, problems: [] })
    await expect(app.persistence.open('x', 'read')).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' })
    await expect(app.persistence.inspect('x')).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' })
    expect(await app.persistence.locate('x')).toBeUndefined()
    await expect(stat(root)).rejects.toMatchObject({ code: 'ENOENT' })
    // A write open takes the lock first (02 §4.2), which creates the store; it leaves no lock behind.
    await expect(app.persistence.open('x', 'write')).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' })
    expect(await readdir(join(root, '.locks'))).toEqual([])
  })

  it('P-099 a store file of another format → STORE_FOREIGN; layout 2 → STORE_INCOMPATIBLE', async () => {
    await mkdir(root, { recursive: true })
    await writeFile(join(root, '.logbook-store.json'), JSON.stringify({ format: 'other-tool', layout: 1, storeId: 'x' }))
    await expect(JsonlApp.start(root)).rejects.toMatchObject({ code: 'STORE_FOREIGN' })
    await writeFile(join(root, '.logbook-store.json'), JSON.stringify({ format: 'logbook-jsonl', layout: 2, storeId: 'x' }))
    await expect(JsonlApp.start(root)).rejects.toMatchObject({ code: 'STORE_INCOMPATIBLE', details: { direction: 'newer' } })
  })

  it('P-099 session files without the store file → STORE_INCOMPATIBLE', async () => {
    const app = await mount()
    await storeSession(app, 'orphan')
    await app.stop()
    apps.length = 0
    await import('node:fs/promises').then((fs) => fs.rm(join(root, '.logbook-store.json')))
    await expect(JsonlApp.start(root)).rejects.toMatchObject({ code: 'STORE_INCOMPATIBLE' })
  })
})

describe('P-100 packing', () => {
  const events = [...turns(1), ...openTurnWithChunks(6, 2, 20)]

  it('P-100 packChunks false → one line per event; packed, unpacked and mixed files load identically', async () => {
    const plain = await mount({ packChunks: false })
    const plainFile = await storeSession(plain, 'plain', events)
    expect((await readFile(plainFile, 'utf8')).trimEnd().split('\n')).toHaveLength(1 + events.length)
    const packed = await mount()
    const packedFile = await storeSession(packed, 'packed', events)
    const packedLines = (await readFile(packedFile, 'utf8')).trimEnd().split('\n')
    expect(packedLines).toHaveLength(1 + 9 + 1)
    expect(JSON.parse((packedLines.at(-1) as string).slice(PREFIX_BYTES))).toMatchObject({ type: 'text-chunks', seq0: 9 })
    // mixed: half written packed, half unpacked
    const first = await packed.persistence.create(hdr('mixed'))
    await first.append(events.slice(0, 15))
    await first.close()
    const second = await plain.persistence.open('mixed', 'write')
    await second.append(events.slice(15))
    await second.close()
    const reader = await mount()
    for (const id of ['plain', 'packed', 'mixed']) {
      expect(await (await reader.persistence.open(id, 'read')).read(), id).toEqual(events)
    }
  })
})

describe('P-175 a header id is checked against its directory name', () => {
  it('P-175 isEncodedAs(id, name) is encodeId(id) === name, for ids with and without capitals and for long ids', () => {
    const ids = ['a', 'abc.d-e_f', 'Abc', 'aBC', 'x'.repeat(64), 'x'.repeat(65), `A${'x'.repeat(63)}`, 'é', 'É', 'ſ']
    for (const id of ids) {
      for (const name of new Set([id, encodeId(id), id.toLowerCase(), `${id}~`])) {
        expect([id, name, isEncodedAs(id, name)]).toEqual([id, name, encodeId(id) === name])
      }
    }
    expect(isEncodedAs('Abc', 'Abc')).toBe(false)
    expect(isEncodedAs('x'.repeat(65), 'x'.repeat(65))).toBe(false)
  })
})
