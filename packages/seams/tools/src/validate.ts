/**
 * Checking a `ToolDefinition` at registration (spec 03 §4): a rejected definition registers nothing.
 */

import { isJsonValue } from '@logbook/session'
import { ToolRegistryError } from './errors.ts'
import { schemaProblem } from './schema.ts'
import type { ToolDefinition } from './types.ts'

const NAME = /^[A-Za-z0-9_-]{1,64}$/

function invalid(name: unknown, reason: string): ToolRegistryError {
  return new ToolRegistryError('INVALID_TOOL', `invalid tool ${JSON.stringify(String(name))}: ${reason}`)
}

/**
 * Assert `def` is a registrable tool: a valid name, a string description, lossless-JSON `parameters` whose enforced
 * keywords are well formed, an `execute` function, a known `concurrency` and a positive safe-integer `timeoutMs`.
 * @throws ToolRegistryError `INVALID_TOOL` naming the tool and the reason.
 */
export function assertToolDefinition(def: ToolDefinition): void {
  if (typeof def !== 'object' || def === null) throw invalid(def, 'definition must be an object')
  const { name, description, parameters, execute, concurrency, timeoutMs } = def
  if (typeof name !== 'string' || !NAME.test(name)) throw invalid(name, 'name must match ^[A-Za-z0-9_-]{1,64}$')
  if (typeof description !== 'string') throw invalid(name, 'description must be a string')
  if (typeof parameters !== 'object' || parameters === null || Array.isArray(parameters) || !isJsonValue(parameters)) {
    throw invalid(name, 'parameters must be a lossless JSON object')
  }
  const problem = schemaProblem(parameters, 'parameters')
  if (problem !== undefined) throw invalid(name, problem)
  if (typeof execute !== 'function') throw invalid(name, 'execute must be a function')
  if (concurrency !== undefined && concurrency !== 'exclusive' && concurrency !== 'parallel-safe') {
    throw invalid(name, 'concurrency must be "exclusive" or "parallel-safe"')
  }
  if (timeoutMs !== undefined && !(Number.isSafeInteger(timeoutMs) && timeoutMs > 0)) {
    throw invalid(name, 'timeoutMs must be a positive safe integer')
  }
}
