/**
 * The projection checkpoint beside the log (02 §1.6, §5): `projections.json`, replaced by temp + fsync + rename +
 * directory fsync, dropped by a cut at or below its `seq`, and never returned once its `seq` is not below the
 * stored event count (so a crash between a cut and the unlink is harmless).
 */
import { readFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import type { ProjectionCheckpoint } from '@logbook/session-persistence'
import { replaceFile, unlinkIfPresent } from './durable-fs.ts'
import { lastEventOf, readFileEnds } from './file-ends.ts'
import { framingOfFirstByte } from './framing.ts'
import { errnoCode, type Durability } from './io.ts'
import { CHECKPOINT_FILE } from './layout.ts'
import type { SessionLocation } from './store.ts'

const checkpointPath = (location: SessionLocation): string => join(dirname(location.file), CHECKPOINT_FILE)

async function readStoredCheckpoint(location: SessionLocation): Promise<ProjectionCheckpoint | undefined> {
  let text: string
  try {
    text = await readFile(checkpointPath(location), 'utf8')
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined
    throw error
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return undefined // a checkpoint is a cache: an unreadable one is as good as none
  }
  const cp = value as Partial<ProjectionCheckpoint> | null
  if (typeof cp !== 'object' || cp === null || !Number.isSafeInteger(cp.seq) || typeof cp.sessionId !== 'string') return undefined
  return cp as ProjectionCheckpoint
}

/** Events stored in the file: last complete record's seq + 1 (0 for a header-only or unreadable tail). */
async function storedCount(location: SessionLocation): Promise<number> {
  const ends = readFileEnds(location.file)
  if (ends === undefined || ends.header === undefined || typeof ends.lastLine !== 'string') return 0
  const last = lastEventOf(ends.lastLine, framingOfFirstByte(ends.header.text.charCodeAt(0)))
  return 'seq' in last ? last.seq + 1 : 0
}

/** The stored checkpoint, or undefined when absent, unreadable, or not below the stored event count. */
export async function readCheckpointFile(location: SessionLocation): Promise<ProjectionCheckpoint | undefined> {
  const cp = await readStoredCheckpoint(location)
  if (cp === undefined) return undefined
  return cp.seq < (await storedCount(location)) ? cp : undefined
}

/** Replaces the checkpoint atomically; `ownerId` names the temp file. */
export async function writeCheckpointFile(
  location: SessionLocation,
  checkpoint: ProjectionCheckpoint,
  ownerId: string,
  durability: Durability,
): Promise<void> {
  const target = checkpointPath(location)
  await replaceFile(`${target}.${ownerId}.tmp`, target, Buffer.from(`${JSON.stringify(checkpoint)}\n`, 'utf8'), durability)
}

/** Unlinks the checkpoint when its `seq` is at or beyond `cutSeq` (an unreadable one is unlinked too). */
export async function removeCheckpointFrom(location: SessionLocation, cutSeq: number): Promise<void> {
  const path = checkpointPath(location)
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return
    throw error
  }
  let seq: unknown
  try {
    seq = (JSON.parse(text) as { seq?: unknown } | null)?.seq
  } catch {
    seq = undefined
  }
  if (!Number.isSafeInteger(seq) || (seq as number) >= cutSeq) await unlinkIfPresent(path)
}
