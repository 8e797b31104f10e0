/**
 * One store root as the backend sees it: its layout, durability, identity (`storeId`, read lazily, created at the
 * first lock) and session lookup across project directories (02 §5 "Layout").
 */
import { readdir, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { assertNever } from '@logbook/session'
import { ensureDir } from './durable-fs.ts'
import { identityCorruptError, storeError } from './errors.ts'
import { errnoCode, type Durability } from './io.ts'
import { encodeId, isReservedName, SESSION_FILE, StoreLayout } from './layout.ts'
import { createStoreFile, readStoreState, STORE_LAYOUT, type StoreState } from './store-identity.ts'

/** A stored session file and the directories it sits in. */
export interface SessionLocation {
  readonly file: string
  readonly sessionDir: string
  readonly projectDir: string
}

/** The store root, its identity and lookups; shared by every hook of one backend instance. */
export class JsonlStore {
  readonly layout: StoreLayout
  #storeId: string | undefined

  constructor(root: string, readonly durability: Durability) {
    this.layout = new StoreLayout(root)
  }

  /** Turns a non-usable state into its error; returns the storeId for `ready`, undefined otherwise. */
  #accept(state: StoreState): string | undefined {
    switch (state.kind) {
      case 'missing-root':
      case 'pristine':
        return undefined
      case 'ready':
        this.#storeId = state.storeId
        return state.storeId
      case 'not-a-directory':
        throw storeError('STORE_UNSAFE', `JSONL store root ${this.layout.root} is not a directory`, this.layout.root)
      case 'foreign':
        throw storeError('STORE_FOREIGN', `${this.layout.root} is not a Logbook JSONL store: ${state.detail}`, this.layout.storeFile)
      case 'incompatible':
        throw storeError(
          'STORE_INCOMPATIBLE',
          `${this.layout.root} has an incompatible layout: ${state.detail} (this build reads layout ${STORE_LAYOUT})`,
          this.layout.storeFile,
          state.direction === null ? undefined : { direction: state.direction },
        )
      default:
        return assertNever(state)
    }
  }

  /** Validates the root without creating anything and removes leftovers of interrupted deletes. */
  async check(): Promise<void> {
    const storeId = this.#accept(await readStoreState(this.layout))
    if (storeId !== undefined) await rm(this.layout.deletedDir, { recursive: true, force: true })
  }

  /** The storeId; a stored session without identity file is `STORE_INCOMPATIBLE`. */
  async storeId(): Promise<string> {
    if (this.#storeId !== undefined) return this.#storeId
    const storeId = this.#accept(await readStoreState(this.layout))
    if (storeId === undefined) {
      throw storeError('STORE_INCOMPATIBLE', `${this.layout.root} holds sessions but no ${this.layout.storeFile}`, this.layout.root)
    }
    return storeId
  }

  /** Creates the root, its identity file (atomically, once) and `.locks`; returns the storeId. */
  async prepareForWrite(): Promise<string> {
    if (this.#storeId === undefined) {
      await ensureDir(this.layout.root, this.durability)
      let storeId = this.#accept(await readStoreState(this.layout))
      if (storeId === undefined) storeId = this.#accept(await createStoreFile(this.layout, this.durability))
      if (storeId === undefined) throw new Error('unreachable: store file not created')
    }
    await ensureDir(this.layout.locksDir, this.durability)
    return this.#storeId as string
  }

  /** Every stored file of `id` (`<root>/*\/<encoded-id>/session.jsonl`); a missing root has none. */
  async findAll(id: string): Promise<SessionLocation[]> {
    const encoded = encodeId(id)
    let projects: string[]
    try {
      projects = await readdir(this.layout.root)
    } catch (error) {
      if (errnoCode(error) === 'ENOENT' || errnoCode(error) === 'ENOTDIR') return []
      throw error
    }
    const found: SessionLocation[] = []
    for (const project of projects) {
      if (isReservedName(project)) continue
      const file = join(this.layout.root, project, encoded, SESSION_FILE)
      try {
        if ((await stat(file)).isFile()) found.push({ file, sessionDir: encoded, projectDir: project })
      } catch (error) {
        const code = errnoCode(error)
        if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error
      }
    }
    return found
  }

  /** The one stored file of `id`, or undefined. @throws `SESSION_CORRUPT` "id stored twice". */
  async find(id: string): Promise<SessionLocation | undefined> {
    const found = await this.findAll(id)
    if (found.length > 1) {
      const files = found.map((f) => f.file).join(', ')
      throw identityCorruptError(id, `id stored twice: ${files}`, (found[0] as SessionLocation).file)
    }
    return found[0]
  }
}

