/**
 * `logbook repair <id> [--cut-at <seq>] [--yes] [--json]` (spec 03 §6.2, 02 §4.7): the way out of a log that reads
 * refuse. Under write ownership it finds the first defect and prints exactly which records a cut there removes and
 * how many events they hold; only with `--yes` does it keep a backup and cut. Without `--yes` nothing is written.
 */

import { isSessionPersistenceError, type RepairRecord, type RepairResult } from '@logbook/session-persistence'
import { expectPositionals } from '../args.ts'
import { json, sessionIdArg, withApp, type Command } from '../command.ts'
import { CliError, EXIT, oneLine, usageError } from '../errors.ts'
import type { Output } from '../io.ts'

/** `--cut-at` as a seq. @throws CliError `USAGE` for anything but a non-negative integer. */
function cutAtArg(raw: string | true | undefined): number | undefined {
  if (raw === undefined) return undefined
  const value = typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : Number.NaN
  if (!Number.isSafeInteger(value)) throw usageError(`--cut-at must be a non-negative integer seq, got "${String(raw)}"`)
  return value
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`

/** `line 13  seq 11  2 events  <problem>` for one record a cut removes. */
function recordLine(record: RepairRecord): string {
  const where = [record.line === undefined ? undefined : `line ${record.line}`, record.seq === undefined ? undefined : `seq ${record.seq}`]
  const events = record.events === null ? 'events unknown' : plural(record.events, 'event')
  return `  ${[...where.filter(part => part !== undefined), events, ...(record.problem === undefined ? [] : [record.problem])].join('  ')}`
}

/** The events a cut removes: `5 events` or `5 events and 1 record that does not decode`. */
function eventsText(result: RepairResult): string {
  const known = plural(result.events, 'event')
  return result.undecodable === 0 ? known : `${known} and ${plural(result.undecodable, 'record')} that ${result.undecodable === 1 ? 'does' : 'do'} not decode`
}

function print(output: Output, result: RepairResult): void {
  const id = result.sessionId
  if (result.defect !== null) {
    const where = result.defect.line === undefined ? `seq ${result.defect.seq}` : `line ${result.defect.line} (seq ${result.defect.seq})`
    output.line(`${id}: first defect at ${where}: ${result.defect.detail}`)
  } else {
    output.line(`${id}: no defect`)
  }
  if (result.cutAt === null) {
    output.line('nothing to cut')
    return
  }
  const what = `${plural(result.records.length, 'record')} from seq ${result.cutAt} (${eventsText(result)})`
  output.line(result.cut ? `cut ${what}:` : `a cut removes ${what}:`)
  for (const record of result.records) output.line(recordLine(record))
  if (result.cut) {
    output.line(result.backup === undefined ? 'no backup: this store keeps none' : `backup: ${result.backup}`)
  } else {
    const at = result.defect !== null && result.cutAt === result.defect.seq ? '' : ` --cut-at ${result.cutAt}`
    output.line(`nothing written; run logbook repair ${id}${at} --yes to cut them (a backup is kept first)`)
  }
}

/**
 * `repair`. Exit 0 when the log is clean or was cut, 5 when records would be cut but `--yes` was not given.
 * @throws CliError `USAGE` for a bad `--cut-at` (also one the log refuses: inside a packed record, past the defect).
 */
export const repair: Command = async (context) => {
  const { args, output } = context
  const [raw] = expectPositionals(args, ['id'])
  const id = sessionIdArg(raw!)
  const cutAt = cutAtArg(args.options['cut-at'])
  const confirmed = args.options.yes === true
  return withApp(context, async (app) => {
    let result: RepairResult
    try {
      result = await app.persistence().repair(id, {
        ...(cutAt === undefined ? {} : { cutAt }),
        ...(confirmed ? { confirm: 'cut-records' as const } : {}),
      }, { signal: context.signal })
    } catch (error) {
      if (isSessionPersistenceError(error, 'INVALID_ARGUMENT')) throw new CliError('USAGE', oneLine(error), { cause: error })
      throw error
    }
    if (args.global.json) output.line(json(result))
    else print(output, result)
    return result.cutAt !== null && !result.cut ? EXIT.REPAIRABLE : EXIT.OK
  })
}
