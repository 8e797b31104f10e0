import type { Context } from '@deepseek-ai/cordis'
import { CallId, Session, SessionId } from '@logbook/session'
import { testApp } from '@logbook/test-kit'
import ToolsService, { type ToolDefinition, type ToolExecution } from '../src/index.ts'

/** A real app with `@logbook/tools` loaded. */
export async function boot(): Promise<Context> {
  const { app } = testApp()
  await app.plugin(ToolsService)
  return app
}

/** A detached session to hand to executions (the seam never appends to it). */
export const session = Session.create(SessionId('tools-test'))

/** An execution of `name` with `args` (JSON text) and an optional signal. */
export function call(name: string, args = '{}', extra: Partial<ToolExecution> = {}): ToolExecution {
  return {
    callId: CallId('c1'), name, arguments: args, signal: new AbortController().signal, session, turn: 1, step: 1, ...extra,
  }
}

/** A minimal tool answering `text`. */
export function echo(name = 'echo', extra: Partial<ToolDefinition> = {}): ToolDefinition {
  return {
    name,
    description: 'answers with the text argument',
    parameters: { type: 'object', properties: { text: { type: 'string' } } },
    execute: args => String(args.text ?? 'ok'),
    ...extra,
  }
}

/** A coded error as a hook listener throws it. */
export class CodedError extends Error {
  constructor(readonly code: string, message: string, name = 'CodedError') {
    super(message)
    this.name = name
  }
}
