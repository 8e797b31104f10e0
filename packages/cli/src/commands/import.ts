/**
 * `logbook import <file> [--as <id>]` (spec 03 §6.2): check an export `jsonl` — its `formatVersion`, the header
 * version as 02 §1.7 words it, then every event through the one validator (D3) — and store it as a new session.
 * An open last turn is kept as it is, for a later resume to close.
 */

import { readFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import {
  assertSessionEvent, assertSessionHeader, isSupportedSessionFormat, isValidSessionId, Session, SESSION_FORMAT_VERSION, type SessionEvent,
  type SessionHeader, type SessionId,
} from '@logbook/session'
import { formatVersionError, unknownEventTypeError } from '@logbook/session-persistence'
import { expectPositionals } from '../args.ts'
import { sessionIdArg, withApp, type Command } from '../command.ts'
import { CliError, oneLine } from '../errors.ts'
import { EXPORT_FORMAT_VERSION } from './export.ts'

/** Progress shows for more than this many events. */
const PROGRESS_THRESHOLD = 10_000

function invalid(file: string, message: string, cause?: unknown): CliError {
  return new CliError('INVALID_EXPORT', `${file}: ${message}`, cause === undefined ? {} : { cause })
}

function parseLine(file: string, text: string, line: number): unknown {
  try {
    return JSON.parse(text)
  } catch (error) {
    throw invalid(file, `line ${line} is not JSON: ${oneLine(error)}`, error)
  }
}

/** The export's header line, checked: `logbook: 'export'`, `formatVersion` 1, a header of the supported version. */
function readPreamble(file: string, first: string | undefined): Record<string, unknown> {
  if (first === undefined || first.trim() === '') throw invalid(file, 'the file is empty')
  const value = parseLine(file, first, 1) as Record<string, unknown> | null
  if (value === null || typeof value !== 'object' || value.logbook !== 'export') {
    throw invalid(file, 'line 1 is not a Logbook export header ({"logbook":"export",…})')
  }
  if (value.formatVersion !== EXPORT_FORMAT_VERSION) {
    throw invalid(file, `export format ${String(value.formatVersion)} is not supported (this build reads ${EXPORT_FORMAT_VERSION})`)
  }
  const header = value.header as Record<string, unknown> | null
  if (header === null || typeof header !== 'object' || Array.isArray(header)) throw invalid(file, 'the export has no header object')
  if (!isSupportedSessionFormat(header.version)) {
    throw formatVersionError(String(header.id), Number(header.version), SESSION_FORMAT_VERSION, file)
  }
  return header
}

/** `import`. */
export const importSession: Command = async (context) => {
  const { args, output } = context
  const [rawFile] = expectPositionals(args, ['file'])
  const file = resolve(context.cwd, rawFile!)
  const as = typeof args.options.as === 'string' ? sessionIdArg(args.options.as) : undefined
  const text = await readFile(file, 'utf8').catch((error: unknown) => {
    throw invalid(file, `cannot read the file: ${oneLine(error)}`, error)
  })
  const lines = text.split('\n')
  if (lines.at(-1) === '') lines.pop()
  const stored = readPreamble(file, lines[0])
  if (as === undefined && !isValidSessionId(stored.id)) {
    throw invalid(file, `the header's id ${JSON.stringify(stored.id)} is not a valid session id (store it under another with --as <id>)`)
  }
  const id = as ?? (stored.id as string)
  const header = { ...stored, id } as unknown as SessionHeader
  try {
    assertSessionHeader(header, id as SessionId)
  } catch (error) {
    throw invalid(file, `the header is invalid: ${oneLine(error)}`, error)
  }
  return withApp(context, async (app) => {
    const progress = output.progress('import', id, lines.length - 1, PROGRESS_THRESHOLD)
    const events: SessionEvent[] = []
    for (let i = 1; i < lines.length; i++) {
      const value = parseLine(file, lines[i]!, i + 1)
      try {
        assertSessionEvent(value)
      } catch (error) {
        throw invalid(file, `line ${i + 1}: ${oneLine(error)}`, error)
      }
      if (value.seq !== i - 1) throw invalid(file, `line ${i + 1}: seq ${value.seq} is not contiguous; expected ${i - 1}`)
      if (value.ignorable !== true && !app.sessions.isKnownEventType(value.type)) {
        throw unknownEventTypeError(id, value.type, SESSION_FORMAT_VERSION, file)
      }
      events.push(value)
      progress.tick(i)
    }
    if (events.length === 0) throw invalid(file, 'the export holds no events, and a session without events is never stored')
    const inheritedEventCount = header.isSeeded === true ? header.seedLength ?? 0 : 0
    // The one validator (D3): payloads, surface plan and seeded contracts, exactly as a restore would run them.
    try {
      Session.create(id as SessionId, { seed: events, header, inheritedEventCount })
    } catch (error) {
      throw invalid(file, `the events do not form a valid session: ${oneLine(error)}`, error)
    }
    progress.end()
    const handle = await app.persistence().create(header)
    try {
      await handle.append(events)
    } finally {
      await handle.close()
    }
    output.line(id)
    return 0
  })
}
