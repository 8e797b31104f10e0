/**
 * Crash-safe file-system building blocks: directory creation with parent fsync, atomic first write of a file
 * (temp + fsync + link + directory fsync; never overwrites) and atomic replacement (temp + fsync + rename).
 */
import { closeSync, openSync } from 'node:fs'
import { link, mkdir, rename, rm, unlink } from 'node:fs/promises'
import { dirname } from 'node:path'
import { errnoCode, syncDir, syncFile, writeFully, type Durability } from './io.ts'

/** Mode of every directory the backend creates. */
export const DIR_MODE = 0o700
/** Mode of every file the backend creates. */
export const FILE_MODE = 0o600

/**
 * Creates `dir` and its missing ancestors (0700); each directory created here has its parent fsynced, so the new
 * entry survives a power loss. Existing directories are left as they are.
 */
export async function ensureDir(dir: string, durability: Durability): Promise<void> {
  const created: string[] = []
  await createMissing(dir, created)
  for (const path of created) await syncDir(dirname(path), durability)
}

async function createMissing(dir: string, created: string[]): Promise<void> {
  try {
    await mkdir(dir, { mode: DIR_MODE })
    created.push(dir)
    return
  } catch (error) {
    const code = errnoCode(error)
    if (code === 'EEXIST') return
    if (code !== 'ENOENT' || dirname(dir) === dir) throw error
  }
  await createMissing(dirname(dir), created)
  try {
    await mkdir(dir, { mode: DIR_MODE })
    created.push(dir)
  } catch (error) {
    if (errnoCode(error) !== 'EEXIST') throw error
  }
}

/** Writes `data` to a new file `path` (`wx`, 0600) and syncs it; the file must not exist. */
export async function writeNewFile(path: string, data: Buffer, durability: Durability): Promise<void> {
  const fd = openSync(path, 'wx', FILE_MODE)
  try {
    writeFully(fd, data, 0)
    await syncFile(fd, durability)
  } finally {
    closeSync(fd)
  }
}

/**
 * Publishes `data` at `target` atomically without ever overwriting: writes `temp`, syncs it, links it to
 * `target` (`EEXIST` is rethrown as is), syncs the directory, unlinks the temp. A crash before the link leaves only
 * the temp file.
 */
export async function publishNewFile(temp: string, target: string, data: Buffer, durability: Durability): Promise<void> {
  await writeNewFile(temp, data, durability)
  try {
    await link(temp, target)
    await syncDir(dirname(target), durability)
  } finally {
    await unlinkQuietly(temp)
  }
}

/** Replaces `target` atomically with `data` through `temp` (temp + sync + rename + directory sync). */
export async function replaceFile(temp: string, target: string, data: Buffer, durability: Durability): Promise<void> {
  await rm(temp, { force: true })
  await writeNewFile(temp, data, durability)
  try {
    await rename(temp, target)
  } catch (error) {
    await unlinkQuietly(temp)
    throw error
  }
  await syncDir(dirname(target), durability)
}

/** Unlinks `path`; a missing file is fine (returns false), other errors propagate. */
export async function unlinkIfPresent(path: string): Promise<boolean> {
  try {
    await unlink(path)
    return true
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return false
    throw error
  }
}

/** Unlinks `path`, swallowing every error: used for temp files whose leftovers a later open removes anyway. */
export async function unlinkQuietly(path: string): Promise<void> {
  try {
    await unlink(path)
  } catch {
    // A leftover temp is harmless: the next open('write') or plugin start removes it.
  }
}
