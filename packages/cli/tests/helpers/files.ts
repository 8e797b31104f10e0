/**
 * Byte-level views of a JSONL store for tests: where a session's file is, and a fingerprint of its bytes and
 * mtime that proves a read-only command left it alone.
 */

import { createHash } from 'node:crypto'
import { readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { hex8, recordChecksum } from '@logbook/session-persistence'
import { encodeId, projectKey } from '../../../backends/session-persistence-jsonl/src/layout.ts'

/** The `session.jsonl` of `id` (no cwd in its header) under the JSONL store `root`. */
export function sessionFile(root: string, id: string, cwd?: string): string {
  return join(root, cwd === undefined ? '_no-cwd' : projectKey(cwd), encodeId(id), 'session.jsonl')
}

/** SHA-256 of the bytes plus the mtime of `path`. */
export function fingerprint(path: string): { sha256: string; mtimeMs: number; size: number } {
  const bytes = readFileSync(path)
  const stat = statSync(path)
  return { sha256: createHash('sha256').update(bytes).digest('hex'), mtimeMs: stat.mtimeMs, size: stat.size }
}

/**
 * Rewrite line `index` (0 = the header) of a session file: `edit` gets the line's JSON text (checksum prefix
 * removed) and returns the new text, stored behind a matching checksum — as a writer would — unless `keepChecksum`.
 */
export function rewriteLine(file: string, index: number, edit: (text: string) => string, options: { keepChecksum?: boolean } = {}): void {
  const lines = readFileSync(file, 'utf8').split('\n')
  const line = lines[index]!
  const framed = !line.startsWith('{')
  const text = edit(framed ? line.slice(9) : line)
  lines[index] = !framed ? text : options.keepChecksum === true ? `${line.slice(0, 9)}${text}` : `${hex8(recordChecksum(text))} ${text}`
  writeFileSync(file, lines.join('\n'))
}
