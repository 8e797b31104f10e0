/**
 * `logbook verify <id|path>` (spec 03 §6.2): an existing file is a path — a JSONL session file (or the session's
 * folder) verifies that session (in the store two folders above the file), a SQLite database (by its magic header)
 * every session in it — anything else is a session id in the selected store. Exit `0`, `5` or `6`; the worst
 * session counts.
 */

import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { isValidSessionId } from '@logbook/session'
import { isSessionPersistenceError, type SessionPersistence } from '@logbook/session-persistence'
import { sessionOfFile } from '@logbook/session-persistence-jsonl'
import type { EmbeddedStore } from '../app/embedded.ts'
import { expectPositionals } from '../args.ts'
import { json, withApp, type Command, type CommandContext } from '../command.ts'
import { CliError, oneLine } from '../errors.ts'
import type { Output } from '../io.ts'
import { exitCodeOfStatus, verifySession } from '../verify/verify.ts'
import type { Finding, VerifyReport } from '../verify/types.ts'

/** Progress shows for more than this many events. */
const PROGRESS_THRESHOLD = 10_000
const SQLITE_MAGIC = 'SQLite format 3\0'

/** What a `verify` argument names. */
type Target =
  | { readonly kind: 'id'; readonly id: string }
  | { readonly kind: 'jsonl'; readonly id: string; readonly store: EmbeddedStore }
  | { readonly kind: 'unnamed'; readonly path: string; readonly store: EmbeddedStore }
  | { readonly kind: 'sqlite'; readonly store: EmbeddedStore }

function firstBytes(path: string, size: number): Buffer {
  const fd = openSync(path, 'r')
  try {
    const buffer = Buffer.alloc(size)
    const read = readSync(fd, buffer, 0, size, 0)
    return buffer.subarray(0, read)
  } finally {
    closeSync(fd)
  }
}

/**
 * What `argument` names. A `session.jsonl` path names its session by the layout (the directory name holds the id),
 * so a damaged header is verified and reported, not mistaken for a usage error or another id; only a hashed long id
 * is read from the header line.
 */
function targetOf(argument: string, cwd: string): Target {
  let path = resolve(cwd, argument)
  // A session's folder stands for its session.jsonl.
  if (existsSync(path) && statSync(path).isDirectory() && existsSync(join(path, 'session.jsonl'))) path = join(path, 'session.jsonl')
  if (!existsSync(path) || !statSync(path).isFile()) {
    if (isValidSessionId(argument)) return { kind: 'id', id: argument }
    throw new CliError('USAGE', `${path} is neither an existing file nor a valid session id`)
  }
  if (firstBytes(path, SQLITE_MAGIC.length).toString('latin1') === SQLITE_MAGIC) return { kind: 'sqlite', store: { kind: 'sqlite', path } }
  const stored = sessionOfFile(path)
  if (stored === undefined) throw new CliError('USAGE', `${path} is neither a Logbook session.jsonl file nor a SQLite database`)
  const id = stored.id ?? headerId(path)
  const store: EmbeddedStore = { kind: 'jsonl', root: stored.root }
  return id === undefined ? { kind: 'unnamed', path, store } : { kind: 'jsonl', id, store }
}

/** The `id` of a session file's header line (its checksum prefix, if any, skipped), or `undefined`. */
function headerId(path: string): string | undefined {
  const head = firstBytes(path, 64 * 1024).toString('utf8')
  const line = head.slice(0, head.includes('\n') ? head.indexOf('\n') : head.length)
  try {
    const value = JSON.parse(line.startsWith('{') ? line : line.slice(9)) as { id?: unknown }
    return isValidSessionId(value.id) ? value.id : undefined
  } catch {
    return undefined
  }
}

/** The report of a listed entry the backend could not summarise (or a file whose session cannot be named). */
function problemReport(session: string, error: unknown): VerifyReport {
  const unsupported = isSessionPersistenceError(error, 'SESSION_FORMAT_UNSUPPORTED')
  const finding: Finding = unsupported
    ? { severity: 'FAIL', check: 'format', message: oneLine(error) }
    : { severity: 'FAIL', check: 'corruption', message: oneLine(error) }
  return { session, events: 0, status: unsupported ? 'unsupported' : 'corrupt', findings: [finding] }
}

/** What the count in the verdict line means: corrupt and unsupported logs are not read past the problem. */
function counted(report: VerifyReport): string {
  if (report.status === 'unsupported') return 'not read'
  const unreadable = report.findings.some(finding => finding.check === 'corruption' && finding.severity === 'FAIL')
  return unreadable ? `${report.events} valid events before the first defect` : `${report.events} events`
}

function print(output: Output, report: VerifyReport): void {
  output.line(`${report.session}: ${report.status} (${counted(report)})`)
  const width = Math.max(...report.findings.map(finding => finding.check.length))
  for (const finding of report.findings) {
    output.line(`  ${finding.severity.padEnd(4)}  ${finding.check.padEnd(width)}  ${finding.message}`)
  }
}

async function verifyAll(context: CommandContext, persistence: SessionPersistence, ids: readonly string[]): Promise<VerifyReport[]> {
  const reports: VerifyReport[] = []
  for (const id of ids) {
    reports.push(await verifySession(persistence, id, total => context.output.progress('verify', id, total, PROGRESS_THRESHOLD)))
  }
  return reports
}

/**
 * Every session of the store: the listed ids, and each entry the listing could not summarise (a header newer than
 * this build, a header column that differs from its JSON…) by its id — verified, so its defect is reported — or, with
 * no id, as its own report.
 */
async function storedIds(persistence: SessionPersistence): Promise<{ ids: string[]; unnamed: VerifyReport[] }> {
  const ids = new Set<string>()
  const unnamed: VerifyReport[] = []
  let cursor: string | null = null
  do {
    const page: Awaited<ReturnType<SessionPersistence['list']>> = await persistence.list({ limit: 500, ...(cursor === null ? {} : { cursor }) })
    for (const item of page.items) ids.add(item.id)
    for (const problem of page.problems) {
      if (problem.sessionId !== undefined) ids.add(problem.sessionId)
      else unnamed.push(problemReport(problem.location, problem.error))
    }
    cursor = page.nextCursor
  } while (cursor !== null)
  return { ids: [...ids], unnamed }
}

/** `verify`. */
export const verify: Command = async (context) => {
  const { args, output } = context
  const [argument] = expectPositionals(args, ['id|path'])
  const target = targetOf(argument!, context.cwd)
  const store = target.kind === 'id' ? undefined : target.store
  return withApp(context, async (app) => {
    const persistence = app.persistence()
    let reports: VerifyReport[]
    if (target.kind === 'sqlite') {
      const { ids, unnamed } = await storedIds(persistence)
      reports = [...await verifyAll(context, persistence, ids), ...unnamed]
    } else if (target.kind === 'unnamed') {
      reports = [problemReport(target.path, new Error(`${target.path}: the header line is unreadable and its directory name does not hold the session id`))]
    } else {
      reports = await verifyAll(context, persistence, [target.id])
    }
    if (args.global.json) output.line(json(target.kind === 'sqlite' ? reports : reports[0]))
    else for (const report of reports) print(output, report)
    return Math.max(0, ...reports.map(report => exitCodeOfStatus(report.status)))
  }, store)
}
