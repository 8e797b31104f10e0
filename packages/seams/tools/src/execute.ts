/**
 * One tool execution (spec 03 §4): lookup, argument checks, the awaited fail-closed `tools/before-execute` hook,
 * then the body under its signal and timeout. Every failure becomes an outcome; nothing here throws.
 */

import { codeOf, type JsonValue, messageOf } from '@logbook/session'
import { ToolError } from './errors.ts'
import { errorOutcome, returnOutcome, thrownOutcome, unknownToolMessage } from './outcome.ts'
import { argumentViolation } from './schema.ts'
import type { ToolArguments, ToolDefinition, ToolExecution, ToolOutcome } from './types.ts'

/** What an execution needs from its registry. */
export interface ExecuteDeps {
  lookup(name: string): ToolDefinition | undefined
  /** Awaits `tools/before-execute`; rejects with an `AggregateError` of failures in listener registration order. */
  beforeExecute(execution: ToolExecution): Promise<void>
}

/** Step 1: the definition and the parsed, schema-checked arguments, or the failed outcome. */
function prepare(execution: ToolExecution, deps: ExecuteDeps): { def: ToolDefinition; args: ToolArguments } | ToolOutcome {
  const def = deps.lookup(execution.name)
  if (def === undefined) return errorOutcome('UNKNOWN_TOOL', unknownToolMessage(execution.name))
  let args: unknown
  try {
    args = JSON.parse(execution.arguments)
  } catch {
    return errorOutcome('INVALID_ARGS', 'arguments are not valid JSON')
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    return errorOutcome('INVALID_ARGS', 'arguments are not valid JSON: expected a JSON object')
  }
  const violation = argumentViolation(def.parameters, args as JsonValue)
  if (violation !== undefined) return errorOutcome('INVALID_ARGS', `invalid arguments: ${violation}`)
  return { def, args: args as ToolArguments }
}

/** Step 2's failure: the earliest-registered failing listener's code, else `HOOK_FAILED`. */
function hookOutcome(error: unknown): ToolOutcome {
  const first = error instanceof AggregateError && error.errors.length > 0 ? error.errors[0] : error
  const code = codeOf(first)
  if (code !== undefined) return thrownOutcome(code, first)
  return thrownOutcome('HOOK_FAILED', first, `tools/before-execute listener failed: ${messageOf(first)}`)
}

/**
 * Run `execution` to an outcome. Unknown tool ⇒ `UNKNOWN_TOOL`; bad arguments ⇒ `INVALID_ARGS`; a rejected hook ⇒
 * its earliest failing listener's code or `HOOK_FAILED`, body not run; then the body: a `ToolError` keeps its code,
 * a throw after the signal fired ⇒ `ABORTED`, any other throw ⇒ `TOOL_ERROR`, `timeoutMs` ⇒ `TOOL_TIMEOUT` with the
 * body's signal aborted. A body that resolves keeps its result, even after an abort.
 */
export async function executeTool(execution: ToolExecution, deps: ExecuteDeps): Promise<ToolOutcome> {
  const prepared = prepare(execution, deps)
  if (!('def' in prepared)) return prepared
  try {
    await deps.beforeExecute(execution)
  } catch (error) {
    return hookOutcome(error)
  }
  if (execution.signal.aborted) {
    return errorOutcome('ABORTED', `tool "${execution.name}" was aborted before its body ran`)
  }
  return runBody(prepared.def, prepared.args, execution)
}

async function runBody(def: ToolDefinition, args: ToolArguments, execution: ToolExecution): Promise<ToolOutcome> {
  const controller = new AbortController()
  const forward = (): void => controller.abort(execution.signal.reason)
  execution.signal.addEventListener('abort', forward, { once: true })
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = def.timeoutMs === undefined
    ? undefined
    : new Promise<ToolOutcome>(resolve => {
      timer = setTimeout(() => {
        const message = `tool "${def.name}" timed out after ${def.timeoutMs} ms`
        controller.abort(new ToolError(message, 'TOOL_TIMEOUT'))
        resolve(errorOutcome('TOOL_TIMEOUT', message))
      }, def.timeoutMs)
    })
  const body = (async (): Promise<ToolOutcome> => {
    try {
      const value = await def.execute(args, {
        signal: controller.signal, session: execution.session, callId: execution.callId, turn: execution.turn, step: execution.step,
      })
      const outcome = returnOutcome(value)
      if (typeof outcome !== 'string') return outcome
      return errorOutcome('TOOL_ERROR', `tool "${def.name}" returned an invalid result: ${outcome}`)
    } catch (error) {
      if (error instanceof ToolError && error.code !== 'TOOL_ERROR') return errorOutcome(error.code, error.message, error.name)
      if (execution.signal.aborted) return thrownOutcome('ABORTED', error)
      return thrownOutcome(error instanceof ToolError ? error.code : 'TOOL_ERROR', error)
    }
  })()
  try {
    return await (timeout === undefined ? body : Promise.race([body, timeout]))
  } finally {
    if (timer !== undefined) clearTimeout(timer)
    execution.signal.removeEventListener('abort', forward)
  }
}
