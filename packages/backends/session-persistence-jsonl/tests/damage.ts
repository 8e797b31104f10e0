/**
 * The JSONL `damage` kit of the conformance suite (02 §9): byte-level edits of stored session files and forged
 * lock files. Test code, never shipped.
 */
import { mkdir, readdir, readFile, stat, truncate, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { recordChecksum } from '@logbook/session-persistence'
import { changeOneDigit, type DamageKit, type LockHolderRecord } from '@logbook/session-persistence-conformance'
import { CURRENT_FRAMING, frameLine, LEGACY_FRAMING, PREFIX_BYTES } from '../src/framing.ts'
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

/** True when the file's lines carry checksum prefixes (its header line does not start with `{`). */
const isFramed = (lines: Buffer[]): boolean => (lines[0] as Buffer)[0] !== 0x7b

/** The JSON text of a line (prefix and newline removed). */
function textOf(line: Buffer, framed: boolean): string {
  const text = line.toString('utf8').replace(/\n$/, '')
  return framed ? text.slice(PREFIX_BYTES) : text
}

/** The line a writer stores for `text`: with a matching checksum prefix when the file is framed. */
function lineOf(text: string, framed: boolean): Buffer {
  return Buffer.from(frameLine(text, recordChecksum(text), framed ? CURRENT_FRAMING : LEGACY_FRAMING), 'utf8')
}

/** The line with its JSON text changed by `edit` and its stored checksum prefix left as it was. */
function underOldChecksum(line: Buffer, edit: (text: string) => string): Buffer {
  const text = line.toString('utf8').replace(/\n$/, '')
  return Buffer.from(`${text.slice(0, PREFIX_BYTES)}${edit(text.slice(PREFIX_BYTES))}\n`, 'utf8')
}

/** Shifts the first seq of a record text by one, keeping it a well-formed object of the same type. */
function gapText(text: string): string {
  const value = JSON.parse(text) as Record<string, unknown>
  if (typeof value.seq === 'number') value.seq += 1
  else if (typeof value.seq0 === 'number') value.seq0 += 1
  else throw new Error('damage: record has no seq')
  return JSON.stringify(value)
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
        const framed = isFramed(lines)
        const line = recordLine(lines, index)
        if (kind === 'checksum') {
          if (!framed) throw new Error('damage: a file without checksums cannot fail one')
          lines[index + 1] = underOldChecksum(line, changeOneDigit)
        } else {
          lines[index + 1] = lineOf(kind === 'garbage' ? '{"type":"turn/start", this is not json' : gapText(textOf(line, framed)), framed)
        }
        return lines
      })
    },
    async appendRawRecord(id, text) {
      await editLines(root, id, (lines) => [...lines, lineOf(text, isFramed(lines))])
    },
    async setHeaderField(id, key, value) {
      await editLines(root, id, (lines) => {
        const framed = isFramed(lines)
        const header = JSON.parse(textOf(lines[0] as Buffer, framed)) as Record<string, unknown>
        if (value === undefined) delete header[key]
        else header[key] = value
        lines[0] = lineOf(JSON.stringify(header), framed)
        return lines
      })
    },
    async corruptHeader(id) {
      await editLines(root, id, (lines) => {
        lines[0] = lineOf('{"type":"session", not json', isFramed(lines))
        return lines
      })
    },
    async flipHeaderDigit(id) {
      await editLines(root, id, (lines) => {
        lines[0] = underOldChecksum(lines[0] as Buffer, text => text.replace(/"createdAt":(\d*)(\d)/, (_, head: string, digit: string) => `"createdAt":${head}${digit === '9' ? '8' : Number(digit) + 1}`))
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
