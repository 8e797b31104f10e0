/**
 * Loading and validating a script (spec 03 §3.3): from a JSON file resolved like every config path (§7), or
 * inline. Every problem is reported once, at load, naming the entry index.
 */

import { readFileSync } from 'node:fs'
import { isAbsolute, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { isLlmFailureCode } from '@logbook/llm'
import { jsonValueProblem, type TokenUsage } from '@logbook/session'
import { ScriptError } from './errors.ts'
import type { ScriptMatch, ScriptResponse } from './types.ts'

type Raw = Record<string, unknown>

const ENTRY_KEYS = new Set(['match', 'times', 'repeat', 'reasoning', 'text', 'toolCalls', 'usage', 'finish', 'error',
  'delayMs', 'chunkDelayMs', 'chunkSize', 'hang'])
const MATCH_KEYS = new Set(['purpose', 'lastUserIncludes', 'afterTool'])
const CALL_KEYS = new Set(['id', 'name', 'arguments'])
const ERROR_KEYS = new Set(['code', 'message', 'afterChunks', 'throw'])
const USAGE_KEYS = ['inputTokens', 'outputTokens', 'cacheReadTokens', 'cacheWriteTokens', 'reasoningTokens'] as const
const FINISHES = new Set(['stop', 'tool-calls', 'max-tokens'])

function isObject(value: unknown): value is Raw {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0
}

/** The directory relative script paths resolve against: `ctx.baseUrl` when set, else the working directory. */
export function baseDirectory(baseUrl: string | undefined): string {
  if (baseUrl === undefined) return process.cwd()
  return baseUrl.startsWith('file:') ? fileURLToPath(baseUrl) : baseUrl
}

/** Read the script file at `path` (relative to `baseDir`) and validate it. @throws ScriptError `INVALID_SCRIPT` */
export function loadScriptFile(path: string, baseDir: string): ScriptResponse[] {
  const file = isAbsolute(path) ? path : resolve(baseDir, path)
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (error) {
    throw new ScriptError(`cannot read "${file}": ${(error as Error).message}`)
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (error) {
    throw new ScriptError(`"${file}" is not JSON: ${(error as Error).message}`)
  }
  return parseScript(parsed)
}

/**
 * Validate a script: an array of entries or `{ "responses": [...] }`.
 * @throws ScriptError `INVALID_SCRIPT` naming the first invalid entry's index.
 */
export function parseScript(source: unknown): ScriptResponse[] {
  const entries = Array.isArray(source) ? source : isObject(source) && Array.isArray(source.responses) ? source.responses : undefined
  if (entries === undefined) throw new ScriptError('expected an array of entries or { "responses": [...] }')
  return entries.map((entry, index) => parseEntry(entry, index))
}

function fail(index: number, message: string): never {
  throw new ScriptError(message, index)
}

function checkKeys(value: Raw, allowed: Set<string>, where: string, index: number): void {
  for (const key of Object.keys(value)) {
    if (!allowed.has(key)) fail(index, `unknown key "${where}${key}"`)
  }
}

function optionalString(value: Raw, key: string, where: string, index: number): string | undefined {
  const field = value[key]
  if (field === undefined) return undefined
  if (typeof field !== 'string') fail(index, `"${where}${key}" must be a string`)
  return field
}

function optionalCount(value: Raw, key: string, where: string, index: number): number | undefined {
  const field = value[key]
  if (field === undefined) return undefined
  if (!isCount(field)) fail(index, `"${where}${key}" must be a non-negative integer`)
  return field
}

function parseMatch(value: unknown, index: number): ScriptMatch {
  if (value === undefined) return {}
  if (!isObject(value)) fail(index, '"match" must be an object')
  checkKeys(value, MATCH_KEYS, 'match.', index)
  const purpose = value.purpose
  if (purpose !== undefined && purpose !== 'turn' && purpose !== 'compaction') {
    fail(index, '"match.purpose" must be "turn" or "compaction"')
  }
  const lastUserIncludes = optionalString(value, 'lastUserIncludes', 'match.', index)
  const afterTool = optionalString(value, 'afterTool', 'match.', index)
  return {
    ...(purpose === undefined ? {} : { purpose }),
    ...(lastUserIncludes === undefined ? {} : { lastUserIncludes }),
    ...(afterTool === undefined ? {} : { afterTool }),
  }
}

/**
 * A call's arguments as JSON text: a string as given, or an object that is lossless JSON (01 §3.2, as event data),
 * so nothing is silently changed by `JSON.stringify` (a Map, NaN, `undefined`, a Date, `toJSON`, `-0`) and nothing
 * makes it throw (a BigInt, a cycle).
 */
function argumentsText(args: unknown, where: string, index: number): string {
  if (typeof args === 'string') return args
  if (!isObject(args)) fail(index, `"${where}" must be a JSON object or a string`)
  const problem = jsonValueProblem(args)
  if (problem !== undefined) fail(index, `"${where}${problem.path}" is not lossless JSON (${problem.found})`)
  return JSON.stringify(args)
}

function parseCalls(value: unknown, index: number): ScriptResponse['toolCalls'] {
  if (value === undefined) return []
  if (!Array.isArray(value)) fail(index, '"toolCalls" must be an array')
  return value.map((call: unknown, i) => {
    const where = `toolCalls[${i}].`
    if (!isObject(call)) fail(index, `"toolCalls[${i}]" must be an object`)
    checkKeys(call, CALL_KEYS, where, index)
    const id = optionalString(call, 'id', where, index)
    if (id === '') fail(index, `"${where}id" must not be empty`)
    if (typeof call.name !== 'string' || call.name === '') fail(index, `"${where}name" must be a non-empty string`)
    return { ...(id === undefined ? {} : { id }), name: call.name, arguments: argumentsText(call.arguments, `${where}arguments`, index) }
  })
}

function parseUsage(value: unknown, index: number): TokenUsage | undefined {
  if (value === undefined) return undefined
  if (!isObject(value)) fail(index, '"usage" must be an object')
  checkKeys(value, new Set(USAGE_KEYS), 'usage.', index)
  const usage: Record<string, number> = {}
  for (const key of USAGE_KEYS) {
    const count = optionalCount(value, key, 'usage.', index)
    if (count !== undefined) usage[key] = count
  }
  if (usage.inputTokens === undefined || usage.outputTokens === undefined) {
    fail(index, '"usage" needs "inputTokens" and "outputTokens"')
  }
  return usage as unknown as TokenUsage
}

function parseError(value: unknown, index: number): ScriptResponse['error'] {
  if (value === undefined) return undefined
  if (!isObject(value)) fail(index, '"error" must be an object')
  checkKeys(value, ERROR_KEYS, 'error.', index)
  if (!isLlmFailureCode(value.code)) fail(index, `"error.code" ${JSON.stringify(value.code)} is not a model failure code`)
  if (typeof value.message !== 'string') fail(index, '"error.message" must be a string')
  const afterChunks = optionalCount(value, 'afterChunks', 'error.', index)
  if (value.throw !== undefined && typeof value.throw !== 'boolean') fail(index, '"error.throw" must be a boolean')
  return {
    code: value.code,
    message: value.message,
    ...(afterChunks === undefined ? {} : { afterChunks }),
    ...(value.throw === true ? { throw: true } : {}),
  }
}

function parseEntry(entry: unknown, index: number): ScriptResponse {
  if (!isObject(entry)) fail(index, 'must be an object')
  checkKeys(entry, ENTRY_KEYS, '', index)
  const times = optionalCount(entry, 'times', '', index)
  if (times === 0) fail(index, '"times" must be at least 1')
  if (entry.repeat !== undefined && typeof entry.repeat !== 'boolean') fail(index, '"repeat" must be a boolean')
  if (entry.repeat === true && times !== undefined) fail(index, '"times" and "repeat" are exclusive')
  if (entry.hang !== undefined && typeof entry.hang !== 'boolean') fail(index, '"hang" must be a boolean')
  if (entry.hang === true && entry.error !== undefined) fail(index, '"hang" and "error" are exclusive')
  if (entry.finish !== undefined && !FINISHES.has(entry.finish as string)) {
    fail(index, '"finish" must be "stop", "tool-calls" or "max-tokens"')
  }
  const chunkSize = optionalCount(entry, 'chunkSize', '', index)
  if (chunkSize === 0) fail(index, '"chunkSize" must be at least 1')
  const usage = parseUsage(entry.usage, index)
  const error = parseError(entry.error, index)
  return {
    index,
    match: parseMatch(entry.match, index),
    times: entry.repeat === true ? Number.POSITIVE_INFINITY : times ?? 1,
    reasoning: optionalString(entry, 'reasoning', '', index) ?? '',
    text: optionalString(entry, 'text', '', index) ?? '',
    toolCalls: parseCalls(entry.toolCalls, index),
    ...(usage === undefined ? {} : { usage }),
    ...(entry.finish === undefined ? {} : { finish: entry.finish as ScriptResponse['finish'] & string }),
    ...(error === undefined ? {} : { error }),
    delayMs: optionalCount(entry, 'delayMs', '', index) ?? 0,
    chunkDelayMs: optionalCount(entry, 'chunkDelayMs', '', index) ?? 0,
    ...(chunkSize === undefined ? {} : { chunkSize }),
    hang: entry.hang === true,
  }
}
