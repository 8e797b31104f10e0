/**
 * Reading a transcript: the text of a file or the caller's string, split into JSON lines. A transcript is written
 * one line at a time by its tool, so a final line without its newline that does not parse is a torn tail (the tool
 * was stopped while writing it): it is skipped and reported. Any other line that is not JSON refuses the file.
 */

import { readFile } from 'node:fs/promises'
import { posix, win32 } from 'node:path'
import { InteropError } from './errors.ts'
import type { ImportInput, ImportOptions } from './types.ts'

/** One parsed line of a transcript. */
export interface SourceLine {
  /** 1-based line number in the file. */
  readonly line: number
  readonly value: unknown
}

/** A transcript read and split. */
export interface SourceText {
  /** What error messages name: the file, or `input` for text without a file. */
  readonly label: string
  /** The path recorded in the header, if any. */
  readonly file?: string
  readonly lines: readonly SourceLine[]
  /** True when the final line was torn and skipped. */
  readonly tornTail: boolean
}

/** A plain JSON object, or undefined. */
export type JsonObject = { readonly [key: string]: unknown }

/** `value` as a plain object, or undefined. */
export function objectOf(value: unknown): JsonObject | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? value as JsonObject : undefined
}

/** `value` when it is a string, else undefined. */
export function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined
}

/** `value` when it is a non-empty string, else undefined. */
export function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined
}

/** `value` when it is an array, else `[]`. */
export function arrayOf(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : []
}

/** A non-negative safe integer, else undefined. */
export function countOf(value: unknown): number | undefined {
  return Number.isSafeInteger(value) && (value as number) >= 0 ? value as number : undefined
}

/** `value` when it is an absolute path (POSIX or Windows, as Logbook headers accept), else undefined. */
export function absolutePath(value: unknown): string | undefined {
  return typeof value === 'string' && (posix.isAbsolute(value) || win32.isAbsolute(value)) ? value : undefined
}

/** Epoch milliseconds from an ISO 8601 string or a millisecond number; undefined when neither. */
export function timeOf(value: unknown): number | undefined {
  if (typeof value === 'number') return countOf(Math.floor(value))
  if (typeof value !== 'string') return undefined
  const ms = Date.parse(value)
  return Number.isFinite(ms) && ms >= 0 ? ms : undefined
}

/**
 * The text of `input` and the label its errors use.
 * @throws InteropError `SOURCE_UNREADABLE` naming the path and the system's reason.
 */
export async function readInput(input: ImportInput, options: ImportOptions): Promise<{ text: string; label: string; file?: string }> {
  if ('text' in input) {
    const file = options.file
    return { text: input.text, label: file ?? 'input', ...(file === undefined ? {} : { file }) }
  }
  const file = options.file ?? input.path
  try {
    return { text: await readFile(input.path, 'utf8'), label: input.path, file }
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    throw new InteropError('SOURCE_UNREADABLE', `${input.path}: cannot read the file: ${reason}`, { cause: error })
  }
}

/**
 * Split `text` into parsed JSON lines (blank lines ignored).
 * @throws InteropError `SOURCE_EMPTY` for a file without a line, `SOURCE_NOT_JSON` naming the first line that does
 * not parse (other than a torn final line).
 */
export function parseJsonLines(text: string, label: string, file?: string): SourceText {
  const raw = text.split('\n')
  const endsWithNewline = text.endsWith('\n')
  const lines: SourceLine[] = []
  let tornTail = false
  let last = raw.length - 1
  while (last >= 0 && raw[last]!.trim() === '') last--
  for (let i = 0; i <= last; i++) {
    const body = raw[i]!.replace(/\r$/, '')
    if (body.trim() === '') continue
    try {
      lines.push({ line: i + 1, value: JSON.parse(body) })
    } catch (error) {
      if (i === last && !endsWithNewline) {
        tornTail = true
        continue
      }
      const reason = error instanceof Error ? error.message : String(error)
      throw new InteropError('SOURCE_NOT_JSON', `${label}: line ${i + 1} is not JSON: ${reason}`, { cause: error })
    }
  }
  if (lines.length === 0 && !tornTail) throw new InteropError('SOURCE_EMPTY', `${label}: the file is empty`)
  if (lines.length === 0) throw new InteropError('SOURCE_EMPTY', `${label}: the file holds only an incomplete line`)
  return { label, ...(file === undefined ? {} : { file }), lines, tornTail }
}
