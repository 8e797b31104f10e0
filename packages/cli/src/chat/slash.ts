/**
 * The slash commands of `logbook chat` (spec 03 §6.2): `/sessions`, `/fork [<seq>]`, `/compact`, `/context`,
 * `/projections`, `/help`, `/exit`. Each prints its result; a failure prints one `logbook: <message> [<CODE>]` line
 * and the chat goes on.
 */

import type { AgentHandle } from '@logbook/agent-loop'
import { retainedRuntimeContext } from '@logbook/agent-loop'
import { measureSession } from '@logbook/compaction'
import { tokenEstimatorOf } from '@logbook/llm'
import type { App } from '../app/app.ts'
import { compactedLine } from '../commands/compact.ts'
import { describeSession } from '../commands/list.ts'
import { CliError } from '../errors.ts'
import type { Output } from '../io.ts'
import { projectionLines } from '../render/projections.ts'

/** The chat state a command works on. */
export interface SlashContext {
  readonly app: App
  readonly output: Output
  /** The agent of the session the chat is in. */
  readonly agent: AgentHandle
  /** Continue the chat in `agent` (after a fork). */
  switchTo(agent: AgentHandle): Promise<void>
}

/** What the chat does after a command. */
export type SlashOutcome = 'continue' | 'exit'

/** The help text of `/help`. */
export const SLASH_HELP = [
  '/sessions        stored sessions, latest first (* marks this one)',
  '/fork [<seq>]    fork this session after event <seq> (default: the last) and continue in the fork',
  '/compact         compact this session\'s history into a summary',
  '/context         the runtime context the model last saw, and the size of what it sees',
  '/projections     every projection\'s view of this session',
  '/help            this list',
  '/exit            leave (Ctrl+C at an empty prompt or Ctrl+D too)',
]

async function sessions(context: SlashContext): Promise<void> {
  const { app, output, agent } = context
  const page = await app.persistence().list({ limit: 20 })
  for (const summary of page.items) {
    const item = await describeSession(app, summary)
    const mark = item.id === agent.id ? '*' : ' '
    output.line(`${mark} ${item.id}  ${item.events} events  ${item.title ?? '-'}`)
  }
  if (!page.items.some(item => item.id === agent.id)) output.line(`* ${agent.id}  (not stored yet)`)
  if (page.nextCursor !== null) output.line(`  … more: logbook list --cursor ${page.nextCursor}`)
}

async function fork(context: SlashContext, arg: string | undefined): Promise<void> {
  if (arg !== undefined && !/^\d+$/.test(arg)) throw new CliError('USAGE', `/fork takes a seq (a non-negative integer), got "${arg}"`)
  const source = context.agent
  const at = arg === undefined ? source.session.seq - 1 : Number(arg)
  const child = await context.app.agents().fork({ sourceSessionId: source.id, at })
  context.output.line(`forked ${source.id} after seq ${at} into ${child.id}; now chatting in ${child.id}`)
  await context.switchTo(child)
}

function contextLines(context: SlashContext): void {
  const { agent, app, output } = context
  const retained = retainedRuntimeContext(agent.session)
  if (retained === undefined) output.line('no runtime context on the surface (it is off, or not injected yet)')
  else {
    output.line(`runtime context (seq ${retained.seq}; sections ${retained.sections.join(', ')}):`)
    output.line(retained.text)
  }
  const measure = measureSession(agent.session, tokenEstimatorOf(app.ctx))
  output.line(`surface: ${measure.nodes.length} nodes, ~${measure.surfaceTokens} tokens`)
}

/**
 * Run the command in `line` (which starts with `/`).
 * @throws the failures of the command (printed by the caller).
 */
export async function runSlash(context: SlashContext, line: string): Promise<SlashOutcome> {
  const [name, ...rest] = line.trim().split(/\s+/)
  if (rest.length > (name === '/fork' ? 1 : 0)) throw new CliError('USAGE', `unexpected argument "${rest.at(-1)}" to ${name}`)
  switch (name) {
    case '/exit':
      return 'exit'
    case '/help':
      for (const text of SLASH_HELP) context.output.line(text)
      return 'continue'
    case '/sessions':
      await sessions(context)
      return 'continue'
    case '/fork':
      await fork(context, rest[0])
      return 'continue'
    case '/compact':
      context.output.line(compactedLine(await context.app.compaction().compactNow(context.agent)))
      return 'continue'
    case '/context':
      contextLines(context)
      return 'continue'
    case '/projections': {
      const projections = context.app.projections()
      if (projections === undefined) throw new CliError('NOT_CONFIGURED', 'projections are not configured (no plugin provides ctx.sessionProjections)')
      for (const text of projectionLines(projections.snapshot(context.agent.session))) context.output.line(text)
      return 'continue'
    }
    default:
      throw new CliError('USAGE', `unknown command ${name} (try /help)`)
  }
}
