import { describe, expect, it } from 'vitest'
import { CodedError } from '@logbook/session'
import { expectPositionals, integerOption, parseCommandLine } from '../src/args.ts'
import { CliError, exitCodeOf } from '../src/errors.ts'

function usage(run: () => unknown): string {
  try {
    run()
  } catch (error) {
    expect(error).toBeInstanceOf(CliError)
    expect((error as CliError).code).toBe('USAGE')
    return (error as Error).message
  }
  throw new Error('expected a usage error')
}

describe('command-line parsing', () => {
  it('reads global options anywhere and command options for their command', () => {
    const args = parseCommandLine(['--dir', 'x', 'fork', 'a', '--at', '3', '--json', '--no-color', '--as', 'b'])
    expect(args.command).toBe('fork')
    expect(args.positionals).toEqual(['a'])
    expect(args.options).toEqual({ at: '3', json: true, as: 'b' })
    expect(args.global).toMatchObject({ dir: 'x', json: true, noColor: true, quiet: false, help: false })
    expect(parseCommandLine(['--config=app.yml', 'list']).global.config).toBe('app.yml')
    expect(parseCommandLine(['-h']).global.help).toBe(true)
  })

  it('rejects unknown options, misplaced ones, missing and unexpected values', () => {
    expect(usage(() => parseCommandLine(['list', '--bogus']))).toBe('unknown option --bogus')
    expect(usage(() => parseCommandLine(['list', '--at', '1']))).toBe('option --at is not valid for list')
    expect(usage(() => parseCommandLine(['--surface']))).toBe('option --surface is not valid without a command')
    expect(usage(() => parseCommandLine(['run', '--json']))).toBe('option --json is not valid for run')
    expect(usage(() => parseCommandLine(['fork', 'a', '--at']))).toBe('option --at requires a value')
    expect(usage(() => parseCommandLine(['list', '--json=yes']))).toBe('option --json takes no value')
    expect(usage(() => parseCommandLine(['list', '--limit', '1', '--limit', '2']))).toBe('option --limit is given twice')
    expect(usage(() => parseCommandLine(['nope']))).toBe('unknown command "nope"')
  })

  it('L-172 collects every value of a repeatable option in order (--redact); view takes --port', () => {
    const args = parseCommandLine(['export', 'a', '--format', 'markdown', '--redact', 'x+', '--redact', 'y+'])
    expect(args.lists).toEqual({ redact: ['x+', 'y+'] })
    expect(args.options).toMatchObject({ format: 'markdown' })
    expect(parseCommandLine(['export', 'a', '--no-redact']).options['no-redact']).toBe(true)
    expect(parseCommandLine(['view', '--port', '8080']).options.port).toBe('8080')
    expect(usage(() => parseCommandLine(['list', '--redact', 'x']))).toBe('option --redact is not valid for list')
    expect(usage(() => parseCommandLine(['view', '--port', '1', '--port', '2']))).toBe('option --port is given twice')
  })

  it('checks positionals and integer options', () => {
    expect(usage(() => expectPositionals(parseCommandLine(['show']), ['id']))).toBe('show needs <id>')
    expect(usage(() => expectPositionals(parseCommandLine(['show', 'a', 'b']), ['id']))).toBe('unexpected argument "b"')
    expect(integerOption('20', 'limit', 1, 500)).toBe(20)
    expect(usage(() => integerOption('-1', 'at', 0))).toBe('option --at must be a non-negative integer, got "-1"')
    expect(usage(() => integerOption('501', 'limit', 1, 500))).toBe('option --limit must be between 1 and 500, got 501')
  })

  it('maps failures to the documented exit codes', () => {
    const coded = (code: string) => Object.assign(new Error('x'), { code })
    expect(exitCodeOf(new CliError('USAGE', 'x'))).toBe(2)
    expect(exitCodeOf(coded('INVALID_BOUNDARY'))).toBe(2)
    expect(exitCodeOf(coded('SESSION_NOT_FOUND'))).toBe(3)
    for (const code of ['SESSION_LOCKED', 'SESSION_ALREADY_EXISTS', 'BUSY']) expect(exitCodeOf(coded(code))).toBe(4)
    expect(exitCodeOf(coded('STORE_IO'))).toBe(1)
    expect(exitCodeOf(new TypeError('boom'))).toBe(1)
  })
})

describe('CliError', () => {
  it('extends CodedError: name CliError, an enumerable read-only code, the message, alreadyReported and cause as given', () => {
    const cause = new Error('root')
    const error = new CliError('BOOT_FAILED', 'cannot boot', { cause, alreadyReported: true })
    expect(error).toBeInstanceOf(CodedError)
    expect({ name: error.name, code: error.code, message: error.message, alreadyReported: error.alreadyReported, cause: error.cause })
      .toEqual({ name: 'CliError', code: 'BOOT_FAILED', message: 'cannot boot', alreadyReported: true, cause })
    expect(Object.getOwnPropertyDescriptor(error, 'code')).toMatchObject({ value: 'BOOT_FAILED', enumerable: true, writable: false })
    expect(new CliError('USAGE', 'x').alreadyReported).toBe(false)
  })
})
