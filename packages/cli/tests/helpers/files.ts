/**
 * Byte-level views of a JSONL store for tests: where a session's file is, and a fingerprint of its bytes and
 * mtime that proves a read-only command left it alone.
 */

import { createHash } from 'node:crypto'
import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
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
