/**
 * Reads only the two ends of a session file (02 §5 "List"): the header line and the last complete line, found in
 * the last 4 KiB and widened up to 1 MiB. Listing and checkpoint reads use it instead of a full scan. Nothing read is
 * kept: a listing reads a returned item's last 4 KiB again for its revision (`readTailAt`), which costs less than
 * keeping every file's tail in fresh memory (a page fault per file). `readHeaderAndTail` reads a revision's inputs
 * (header line, size, last 4 KiB) for the backend's `revision` hook.
 */
import { closeSync, fstatSync, readSync } from 'node:fs'
import { decodeRecordValue } from '@logbook/session-persistence'
import { CURRENT_FRAMING, unframeText, type Framing } from './framing.ts'
import type { HeaderLine } from './header-line.ts'
import { openForReadIfExists, readAt } from './io.ts'
import { readTail, REVISION_TAIL } from './revision.ts'

/** The most a header line or the last line may take before the file counts as unreadable here. */
export const MAX_END_WINDOW = 1024 * 1024

/** What the ends of a file say. */
export interface FileEnds {
  readonly size: number
  /** The header line (`complete` false when no newline ends it within 1 MiB); undefined for an empty file. */
  readonly header: HeaderLine | undefined
  /** The last complete line after the header; `null` when the header is the last complete line. */
  readonly lastLine: string | null | undefined
}

/**
 * The first read takes this much: a file shorter than it is read whole in one call (no `fstat`, no second read),
 * and a larger one's header line almost always falls within it.
 */
const HEAD_WINDOW = 4 * REVISION_TAIL
/** Scratch for the first read; everything taken from it is decoded before the next file is read. */
const headScratch = Buffer.allocUnsafe(HEAD_WINDOW)
/** Scratch for a tail read; what is taken from it is decoded or hashed before the next read. */
const tailScratch = Buffer.allocUnsafe(REVISION_TAIL)

/** The header line and the offset just past its newline, widening from the first 4 KiB up to 1 MiB. */
function headerLine(fd: number, size: number, head: Buffer): { text: string; end: number } | undefined {
  for (let bytes = head, window = head.length; ; ) {
    const nl = bytes.indexOf(10)
    if (nl !== -1) return { text: bytes.toString('utf8', 0, nl), end: nl + 1 }
    if (bytes.length >= size || bytes.length >= MAX_END_WINDOW) return undefined
    window *= 4
    bytes = readAt(fd, 0, Math.min(window, size, MAX_END_WINDOW))
  }
}

/** The start offset and text of the last complete line, widening from `tail` up to 1 MiB; undefined past that. */
function lastCompleteLine(fd: number, size: number, tail: Buffer): { start: number; text: string } | undefined {
  for (let bytes = tail, window = Math.max(tail.length, REVISION_TAIL); ; ) {
    const start = size - bytes.length
    const end = bytes.lastIndexOf(10)
    if (end !== -1) {
      const before = end === 0 ? -1 : bytes.lastIndexOf(10, end - 1)
      if (before !== -1 || start === 0) return { start: start + before + 1, text: bytes.toString('utf8', before + 1, end) }
    }
    if (start === 0 || bytes.length >= MAX_END_WINDOW) return undefined
    window *= 4
    const length = Math.min(window, size, MAX_END_WINDOW)
    bytes = readAt(fd, size - length, length)
  }
}

/**
 * Reads the ends of the file at `path` with synchronous reads (one for a file shorter than 16 KiB, else `fstat` and
 * a tail read: they are small, from the page cache, and an async round trip per read costs more than the read);
 * undefined when it does not exist.
 */
export function readFileEnds(path: string): FileEnds | undefined {
  const fd = openForReadIfExists(path)
  if (fd === undefined) return undefined
  try {
    // A regular file reads short only at its end: a first read shorter than the window is the whole file, its length
    // the size, with no `fstat` and no second read to see end of file.
    const first = readSync(fd, headScratch, 0, HEAD_WINDOW, 0)
    if (first < HEAD_WINDOW) return wholeFileEnds(first)
    const head = headScratch
    const size = fstatSync(fd).size
    const tail = readTail(fd, size, tailScratch)
    const header = headerLine(fd, size, head)
    const last = header === undefined ? undefined : lastCompleteLine(fd, size, tail)
    const lastLine = last === undefined || header === undefined ? undefined : last.start < header.end ? null : last.text
    return { size, header: asHeaderLine(header, head), lastLine }
  } finally {
    closeSync(fd)
  }
}

/** What `headerLine` found, as the header line a decoder takes (the first bytes read, incomplete, when none ended). */
function asHeaderLine(found: { text: string } | undefined, head: Buffer): HeaderLine {
  return found === undefined ? { text: head.toString('utf8'), complete: false } : { text: found.text, complete: true }
}

/**
 * The inputs of a revision of the file at `path`, with one open and no search for its last line: its size, its header
 * line (undefined for an empty file) and its last min(4096, size) bytes, a scratch view valid until the next read
 * here; undefined when the file does not exist.
 */
export function readHeaderAndTail(path: string): { readonly size: number; readonly header: HeaderLine | undefined; readonly tail: Buffer } | undefined {
  const fd = openForReadIfExists(path)
  if (fd === undefined) return undefined
  try {
    const first = readSync(fd, headScratch, 0, HEAD_WINDOW, 0)
    if (first < HEAD_WINDOW) {
      // The whole file, as in `readFileEnds`: the scratch's bytes past it are older and not looked at.
      const whole = headScratch.subarray(0, first)
      const header = first === 0 ? undefined : asHeaderLine(headerLine(fd, first, whole), whole)
      return { size: first, header, tail: whole.subarray(Math.max(0, first - REVISION_TAIL)) }
    }
    const size = fstatSync(fd).size
    const header = asHeaderLine(headerLine(fd, size, headScratch), headScratch)
    return { size, header, tail: readTail(fd, size, tailScratch) }
  } finally {
    closeSync(fd)
  }
}

/** The ends of a file read whole into the first `size` bytes of the scratch (the common case: one read, no views). */
function wholeFileEnds(size: number): FileEnds {
  if (size === 0) return { size, header: undefined, lastLine: undefined }
  // The scratch holds older bytes past `size`: a newline found there is not in this file.
  const nl = headScratch.indexOf(10)
  if (nl === -1 || nl >= size) return { size, header: { text: headScratch.toString('utf8', 0, size), complete: false }, lastLine: undefined }
  const header = { text: headScratch.toString('utf8', 0, nl), complete: true }
  const end = headScratch.lastIndexOf(10, size - 1)
  if (end === nl) return { size, header, lastLine: null }
  const before = headScratch.lastIndexOf(10, end - 1)
  return { size, header, lastLine: headScratch.toString('utf8', before + 1, end) }
}

/**
 * The last min(4096, `size`) bytes of the file at `path` as they were at `size` (bytes an append leaves in place), in
 * a scratch valid until the next read here; shorter when the file has shrunk since, undefined when it is gone.
 */
export function readTailAt(path: string, size: number): Buffer | undefined {
  const fd = openForReadIfExists(path)
  if (fd === undefined) return undefined
  try {
    return readTail(fd, size, tailScratch)
  } finally {
    closeSync(fd)
  }
}

/**
 * Seq and time of the last event a record line of a file in `framing` holds (its checksum checked first), or a reason
 * it cannot be read.
 */
export function lastEventOf(line: string, framing: Framing): { readonly seq: number; readonly time: number } | { readonly problem: string } {
  let text = line
  if (framing === CURRENT_FRAMING) {
    const unframed = unframeText(line)
    if ('problem' in unframed) return { problem: `the last record fails its check: ${unframed.problem}` }
    text = unframed.text
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return { problem: 'the last record is not valid JSON' }
  }
  const decoded = decodeRecordValue(value)
  if (!decoded.ok) return { problem: `the last record does not decode: ${decoded.reason}` }
  // A packed run is validated as a row (contiguous safe-integer seqs and times): its last member is read off it unbuilt.
  const run = decoded.run
  if (run !== undefined) return { seq: run.seq0 + run.length - 1, time: run.lastTime }
  const last = decoded.events[decoded.events.length - 1] as { seq?: unknown; time?: unknown } | undefined
  if (typeof last !== 'object' || last === null || !Number.isSafeInteger(last.seq) || !Number.isSafeInteger(last.time)) {
    return { problem: 'the last record has no safe-integer seq and time' }
  }
  return { seq: last.seq as number, time: last.time as number }
}
