/**
 * `logbook verify <id|path>` (spec 03 §6.2): an existing file is a path — a JSONL session file (or the session's
 * folder) verifies that session (in the store two folders above the file), a SQLite database (by its magic header)
 * every session in it — anything else is a session id in the selected store. Exit `0`, `5` or `6`; the worst
 * session counts.
 */

import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'
import { isValidSessionId } from '@logbook/session'
import type { SessionPersistence } from '@logbook/session-persistence'
import type { EmbeddedStore } from '../app/embedded.ts'
import { expectPositionals } from '../args.ts'
import { json, withApp, type Command, type CommandContext } from '../command.ts'
import { CliError } from '../errors.ts'
import type { Output } from '../io.ts'
import { exitCodeOfStatus, verifySession } from '../verify/verify.ts'
import type { VerifyReport } from '../verify/types.ts'

/** Progress shows for more than this many events. */
const PROGRESS_THRESHOLD = 10_000
const SQLITE_MAGIC = 'SQLite format 3\0'

/** What a `verify` argument names. */
type Target =
  | { readonly kind: 'id'; readonly id: string }
  | { readonly kind: 'jsonl'; readonly id: string; readonly store: EmbeddedStore }
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

function targetOf(argument: string, cwd: string): Target {
  let path = resolve(cwd, argument)
  // A session's folder stands for its session.jsonl.
  if (existsSync(path) && statSync(path).isDirectory() && existsSync(join(path, 'session.jsonl'))) path = join(path, 'session.jsonl')
  if (!existsSync(path) || !statSync(path).isFile()) {
    if (isValidSessionId(argument)) return { kind: 'id', id: argument }
    throw new CliError('USAGE', `${path} is neither an existing file nor a valid session id`)
  }
  if (firstBytes(path, SQLITE_MAGIC.length).toString('latin1') === SQLITE_MAGIC) return { kind: 'sqlite', store: { kind: 'sqlite', path } }
  const head = firstBytes(path, 64 * 1024).toString('utf8')
  const newline = head.indexOf('\n')
  let header: { type?: unknown; id?: unknown } | undefined
  try {
    header = JSON.parse(newline < 0 ? head : head.slice(0, newline)) as typeof header
  } catch {
    header = undefined
  }
  if (basename(path) !== 'session.jsonl' || header?.type !== 'session' || typeof header.id !== 'string') {
    throw new CliError('USAGE', `${path} is neither a Logbook session.jsonl file nor a SQLite database`)
  }
  return { kind: 'jsonl', id: header.id, store: { kind: 'jsonl', root: resolve(dirname(path), '..', '..') } }
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

async function storedIds(persistence: SessionPersistence): Promise<string[]> {
  const ids: string[] = []
  let cursor: string | null = null
  do {
    const page: Awaited<ReturnType<SessionPersistence['list']>> = await persistence.list({ limit: 500, ...(cursor === null ? {} : { cursor }) })
    ids.push(...page.items.map(item => item.id))
    cursor = page.nextCursor
  } while (cursor !== null)
  return ids
}

/** `verify`. */
export const verify: Command = async (context) => {
  const { args, output } = context
  const [argument] = expectPositionals(args, ['id|path'])
  const target = targetOf(argument!, context.cwd)
  const store = target.kind === 'id' ? undefined : target.store
  return withApp(context, async (app) => {
    const persistence = app.persistence()
    const ids = target.kind === 'sqlite' ? await storedIds(persistence) : [target.id]
    const reports = await verifyAll(context, persistence, ids)
    if (args.global.json) output.line(json(target.kind === 'sqlite' ? reports : reports[0]))
    else for (const report of reports) print(output, report)
    return Math.max(0, ...reports.map(report => exitCodeOfStatus(report.status)))
  }, store)
}
