/**
 * Command-line parsing (spec 03 §6): one pass over every known option, then per-command checks. Every failure is
 * a `USAGE` error (exit 2) with a one-line message.
 */

import { parseArgs } from 'node:util'
import { usageError } from './errors.ts'

/** The commands of §6.2, plus the demo's hidden child. */
export type CommandName =
  | 'demo' | 'run' | 'chat' | 'list' | 'show' | 'fork' | 'compact' | 'verify' | 'repair' | 'migrate' | 'export' | 'import'
  | 'transfer' | '__demo-child' | 'search' | 'delete' | 'view'

/** The public commands, in help order. */
export const COMMANDS: readonly CommandName[] = Object.freeze([
  'demo', 'run', 'chat', 'list', 'show', 'fork', 'compact', 'verify', 'repair', 'migrate', 'export', 'import', 'transfer',
  'search', 'delete', 'view',
])

type OptionKind = 'string' | 'boolean'

/** Every option: its kind, the commands it is valid for (`'*'` = global), and whether it may be given more than once. */
const OPTIONS: Readonly<Record<string, { kind: OptionKind; short?: string; commands: readonly string[] | '*'; repeatable?: true }>> = {
  'dir': { kind: 'string', commands: '*' },
  'config': { kind: 'string', commands: '*' },
  'json': { kind: 'boolean', commands: ['list', 'show', 'verify', 'repair', 'migrate', 'fork', 'compact', 'import', 'search'] },
  'progress': { kind: 'boolean', commands: '*' },
  'quiet': { kind: 'boolean', commands: '*' },
  'no-color': { kind: 'boolean', commands: '*' },
  'help': { kind: 'boolean', short: 'h', commands: '*' },
  'version': { kind: 'boolean', commands: '*' },
  'keep-alive': { kind: 'boolean', commands: ['run'] },
  'limit': { kind: 'string', commands: ['list', 'search'] },
  'cursor': { kind: 'string', commands: ['list'] },
  'surface': { kind: 'boolean', commands: ['show'] },
  'log': { kind: 'boolean', commands: ['show'] },
  'projections': { kind: 'boolean', commands: ['show'] },
  'resume': { kind: 'string', commands: ['chat'] },
  'fork': { kind: 'string', commands: ['chat'] },
  'at': { kind: 'string', commands: ['fork', 'show'] },
  'as': { kind: 'string', commands: ['fork', 'import'] },
  'format': { kind: 'string', commands: ['export'] },
  'out': { kind: 'string', commands: ['export'] },
  'to': { kind: 'string', commands: ['transfer'] },
  'all': { kind: 'boolean', commands: ['transfer', 'migrate'] },
  'cut-at': { kind: 'string', commands: ['repair'] },
  'redact': { kind: 'string', commands: ['export'], repeatable: true },
  'no-redact': { kind: 'boolean', commands: ['export'] },
  'port': { kind: 'string', commands: ['view'] },
  'session': { kind: 'string', commands: ['search'] },
  'fts': { kind: 'boolean', commands: ['search'] },
  'reindex': { kind: 'boolean', commands: ['search'] },
  'yes': { kind: 'boolean', commands: ['delete', 'repair'] },
  'from': { kind: 'string', commands: ['import'] },
  'dry-run': { kind: 'boolean', commands: ['import'] },
  'force': { kind: 'boolean', commands: ['import'] },
}

/** Parsed global options. */
export interface GlobalOptions {
  readonly dir?: string
  readonly config?: string
  readonly json: boolean
  readonly progress: boolean
  readonly quiet: boolean
  readonly noColor: boolean
  readonly help: boolean
  readonly version: boolean
}

/** A parsed command line. */
export interface ParsedArgs {
  readonly command: CommandName | undefined
  readonly positionals: readonly string[]
  readonly global: GlobalOptions
  /** Command options by name (strings and `true` for booleans; a repeatable option's last value). */
  readonly options: Readonly<Record<string, string | true>>
  /** Every value of each repeatable option, in order. */
  readonly lists: Readonly<Record<string, readonly string[]>>
}

function isCommand(name: string): name is CommandName {
  return (COMMANDS as readonly string[]).includes(name) || name === '__demo-child'
}

/**
 * Parse `argv` (without `node` and the script).
 * @throws CliError `USAGE` for an unknown command or option, a missing or unexpected value, or an option that the
 * command does not take.
 */
export function parseCommandLine(argv: readonly string[]): ParsedArgs {
  const config: Record<string, { type: OptionKind; short?: string }> = {}
  for (const [name, option] of Object.entries(OPTIONS)) {
    config[name] = option.short === undefined ? { type: option.kind } : { type: option.kind, short: option.short }
  }
  let parsed: ReturnType<typeof parseArgs>
  try {
    parsed = parseArgs({ args: [...argv], options: config, strict: false, allowPositionals: true, tokens: true })
  } catch (error) {
    throw usageError(error instanceof Error ? error.message.split('\n')[0]! : String(error))
  }
  const values: Record<string, string | true> = {}
  const lists: Record<string, string[]> = {}
  for (const token of parsed.tokens ?? []) {
    if (token.kind !== 'option') continue
    const spec = OPTIONS[token.name]
    if (spec === undefined) throw usageError(`unknown option ${token.rawName}`)
    if (spec.kind === 'string' && token.value === undefined) throw usageError(`option --${token.name} requires a value`)
    if (spec.kind === 'boolean' && token.value !== undefined) throw usageError(`option --${token.name} takes no value`)
    if (token.name in values && spec.repeatable !== true) throw usageError(`option --${token.name} is given twice`)
    values[token.name] = spec.kind === 'string' ? token.value! : true
    if (spec.repeatable === true) (lists[token.name] ??= []).push(token.value!)
  }
  const [first, ...positionals] = parsed.positionals
  let command: CommandName | undefined
  if (first !== undefined) {
    if (!isCommand(first)) throw usageError(`unknown command "${first}"`)
    command = first
  }
  const options: Record<string, string | true> = {}
  for (const [name, value] of Object.entries(values)) {
    const allowed = OPTIONS[name]!.commands
    if (allowed === '*') continue
    if (command === undefined || !allowed.includes(command)) {
      throw usageError(`option --${name} is not valid ${command === undefined ? 'without a command' : `for ${command}`}`)
    }
    options[name] = value
  }
  const text = (name: string): string | undefined => (typeof values[name] === 'string' ? values[name] : undefined)
  const dir = text('dir')
  const cfg = text('config')
  return {
    command,
    positionals,
    options,
    lists,
    global: {
      ...(dir === undefined ? {} : { dir }),
      ...(cfg === undefined ? {} : { config: cfg }),
      json: values.json === true,
      progress: values.progress === true,
      quiet: values.quiet === true,
      noColor: values['no-color'] === true,
      help: values.help === true,
      version: values.version === true,
    },
  }
}

/**
 * Exactly `count` positionals (`names` for the message) plus up to `optional` more.
 * @throws CliError `USAGE`
 */
export function expectPositionals(args: ParsedArgs, names: readonly string[], optional = 0): string[] {
  const got = args.positionals
  if (got.length < names.length) throw usageError(`${args.command} needs ${names.slice(got.length).map(n => `<${n}>`).join(' ')}`)
  if (got.length > names.length + optional) throw usageError(`unexpected argument "${got[names.length + optional]}"`)
  return [...got]
}

/**
 * A non-negative safe integer option value.
 * @throws CliError `USAGE`
 */
export function integerOption(value: string, name: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (!/^\d+$/.test(value)) throw usageError(`option --${name} must be a non-negative integer, got "${value}"`)
  const number = Number(value)
  if (!Number.isSafeInteger(number) || number < min || number > max) {
    throw usageError(`option --${name} must be between ${min} and ${max}, got ${value}`)
  }
  return number
}
