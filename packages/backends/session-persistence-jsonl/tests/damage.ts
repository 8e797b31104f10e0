/**
 * The JSONL `damage` kit of the conformance suite (02 §9): byte-level edits of stored session files and forged
 * lock files. Test code, never shipped.
 */
import { mkdir, readdir, readFile, stat, truncate, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { DamageKit, LockHolderRecord } from '@logbook/session-persistence-conformance'
import { encodeId, LOCKS_DIR, SESSION_FILE } from '../src/layout.ts'

/** Path of the stored log of `id` under `root` (first project directory holding it). */
export async function sessionFileOf(root: string, id: string): Promise<string> {
  const encoded = encodeId(id)
  for (const project of await readdir(root)) {
    if (project.startsWith('.')) continue
    const path = join(root, project, encoded, SESSION_FILE)
    try {
      await stat(path)
      return path
    } catch {
      // not in this project directory
    }
  }
  throw new Error(`damage: session ${id} is not stored under ${root}`)
}

/** Splits file bytes into lines that keep their `\n` (the last one may lack it). */
function splitLines(bytes: Buffer): Buffer[] {
  const lines: Buffer[] = []
  let start = 0
  while (start < bytes.length) {
    const nl = bytes.indexOf(10, start)
    const end = nl === -1 ? bytes.length : nl + 1
    lines.push(bytes.subarray(start, end))
    start = end
  }
  return lines
}

async function editLines(root: string, id: string, edit: (lines: Buffer[]) => Buffer[]): Promise<void> {
  const path = await sessionFileOf(root, id)
  const lines = splitLines(await readFile(path))
  await writeFile(path, Buffer.concat(edit(lines)))
}

function recordLine(lines: Buffer[], index: number): Buffer {
  const line = lines[index + 1]
  if (line === undefined) throw new Error(`damage: no record at index ${index}`)
  return line
}

/** Shifts the first seq of a record line by one, keeping it a well-formed object of the same type. */
function gapLine(line: Buffer): Buffer {
  const value = JSON.parse(line.toString('utf8')) as Record<string, unknown>
  if (typeof value.seq === 'number') value.seq += 1
  else if (typeof value.seq0 === 'number') value.seq0 += 1
  else throw new Error('damage: record has no seq')
  return Buffer.from(`${JSON.stringify(value)}\n`)
}

/** The damage kit for a store rooted at `root`. */
export function jsonlDamage(root: string): DamageKit {
  return {
    async tearLastRecord(id, keep) {
      const path = await sessionFileOf(root, id)
      const lines = splitLines(await readFile(path))
      if (lines.length < 2) throw new Error('damage: no record to tear')
      const last = lines.at(-1) as Buffer
      const start = (await stat(path)).size - last.length
      if (keep < last.length) await truncate(path, start + keep)
      return last.length
    },
    async corruptRecord(id, index, kind) {
      await editLines(root, id, (lines) => {
        const line = recordLine(lines, index)
        lines[index + 1] = kind === 'garbage' ? Buffer.from('{"type":"turn/start", this is not json\n') : gapLine(line)
        return lines
      })
    },
    async appendRawRecord(id, text) {
      await editLines(root, id, (lines) => [...lines, Buffer.from(`${text}\n`)])
    },
    async setHeaderField(id, key, value) {
      await editLines(root, id, (lines) => {
        const header = JSON.parse((lines[0] as Buffer).toString('utf8')) as Record<string, unknown>
        if (value === undefined) delete header[key]
        else header[key] = value
        lines[0] = Buffer.from(`${JSON.stringify(header)}\n`)
        return lines
      })
    },
    async corruptHeader(id) {
      await editLines(root, id, (lines) => {
        lines[0] = Buffer.from('{"type":"session", not json\n')
        return lines
      })
    },
    async writeLockRecord(id, holder: LockHolderRecord) {
      await mkdir(join(root, LOCKS_DIR), { recursive: true, mode: 0o700 })
      const { ownerId, pid, host, processStart, acquiredAt } = holder
      const text = JSON.stringify({ v: 1, sessionId: id, ownerId, pid, host, processStart, acquiredAt })
      await writeFile(join(root, LOCKS_DIR, `${encodeId(id)}.lock`), `${text}\n`, { mode: 0o600 })
    },
  }
}
