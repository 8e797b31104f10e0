/**
 * Copies kept beside a session file before maintenance changes it (02 §4.7): `backup` copies the file before a
 * repair cuts it; `migrateFile` rewrites a framing-1 file in the current framing through a new file beside it and an
 * atomic rename, keeping the original under another name. Both files stay until the user deletes them; their names
 * (`session.jsonl.<stamp>.<why>`) are ignored by every read path.
 */
import { closeSync, constants, fsyncSync, openSync } from 'node:fs'
import { copyFile, link, readFile, rename } from 'node:fs/promises'
import { dirname } from 'node:path'
import { createKeptCopy, hex8, recordChecksum } from '@logbook/session-persistence'
import { unlinkQuietly, writeNewFile } from './durable-fs.ts'
import { decodeHeaderLine, encodeHeaderLine } from './header-line.ts'
import { syncDir, type Durability } from './io.ts'
import type { SessionLocation } from './store.ts'

/** fsync the file at `path` (a copy `copyFile` wrote). */
function syncPath(path: string, durability: Durability): void {
  if (durability === 'none') return
  const fd = openSync(path, 'r')
  try {
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

/** Copy the session file beside itself (`session.jsonl.<stamp>.bak`, never overwriting) and return the copy's path. */
export async function backupFile(location: SessionLocation, durability: Durability): Promise<string> {
  const copy = await createKeptCopy(location.file, 'bak', name => copyFile(location.file, name, constants.COPYFILE_EXCL))
  syncPath(copy, durability)
  await syncDir(dirname(copy), durability)
  return copy
}

/**
 * The bytes of the framing-1 file `bytes` in the current framing: the header line re-encoded with `framing` and its
 * checksum, every record line kept byte for byte behind its checksum prefix.
 */
function reframe(bytes: Buffer, location: SessionLocation): Buffer {
  const end = bytes.indexOf(10)
  const head = decodeHeaderLine({ text: bytes.toString('utf8', 0, end), complete: end >= 0 }, location)
  if (head.header === undefined || head.problem !== undefined || head.framing !== 1) {
    throw new Error(`migrate: ${location.file} is not a readable framing-1 session file`)
  }
  const parts: Buffer[] = [Buffer.from(`${encodeHeaderLine(head.header as never, head.incarnation)}\n`, 'utf8')]
  for (let start = end + 1; start < bytes.length;) {
    const nl = bytes.indexOf(10, start)
    const stop = nl < 0 ? bytes.length : nl
    const line = bytes.subarray(start, stop)
    parts.push(Buffer.from(`${hex8(recordChecksum(line))} `, 'latin1'), line, Buffer.from('\n'))
    start = stop + 1
  }
  return Buffer.concat(parts)
}

/**
 * Rewrite the framing-1 file at `location` in the current framing: the new file is written and synced beside it
 * (`<file>.<ownerId>.tmp`), the original is linked to `session.jsonl.<stamp>.framing-1`, then the new file is
 * renamed over `session.jsonl` (atomic) and the directory synced. Returns where the original is kept.
 * The caller holds the lock and has checked the whole log (a torn tail already cut).
 */
export async function migrateFile(location: SessionLocation, ownerId: string, durability: Durability): Promise<string> {
  const { file } = location
  const reframed = reframe(await readFile(file), location)
  const temp = `${file}.${ownerId}.tmp`
  await writeNewFile(temp, reframed, durability)
  try {
    const original = await createKeptCopy(file, 'framing-1', name => link(file, name))
    await rename(temp, file)
    await syncDir(dirname(file), durability)
    return original
  } finally {
    await unlinkQuietly(temp)
  }
}
