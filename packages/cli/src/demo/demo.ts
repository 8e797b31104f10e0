/**
 * `logbook demo` (spec 03 §6.2): a guided tour on the default store, offline, deleting nothing. Six numbered
 * sections: a session with tools; a second process resuming it and killed mid-tool; resume after the crash; a
 * manual compaction; a fork; the projections of both sessions and a verify of each.
 */

import { relative } from 'node:path'
import type { AgentHandle } from '@logbook/agent-loop'
import type { LlmRequest } from '@logbook/llm'
import type { Session } from '@logbook/session'
import type { App } from '../app/app.ts'
import { DEMO_MODEL, DEMO_PROVIDER } from '../app/embedded.ts'
import { expectPositionals } from '../args.ts'
import { withApp, type Command, type CommandContext } from '../command.ts'
import { sessionExists } from '../commands/exists.ts'
import { compactedLine } from '../commands/compact.ts'
import { readStored } from '../commands/stored.ts'
import { CliError, usageError } from '../errors.ts'
import type { Output } from '../io.ts'
import { TranscriptRenderer } from '../render/transcript.ts'
import { clip } from '../render/text.ts'
import { verifySession } from '../verify/verify.ts'
import { DEMO_PROMPTS, DEMO_SYSTEM } from './script.ts'
import { crashChildDuringDeploy } from './spawn.ts'
import { summaryLines } from './summary.ts'

function section(output: Output, number: number, title: string): void {
  output.line()
  output.line(output.bold(`${number}. ${title}`))
}

function note(output: Output, text: string): void {
  output.line(output.dim(`   ${text}`))
}

/** The smallest n ≥ 1 for which neither `demo-<n>` nor `demo-<n>-fork-1` exists. */
async function freeDemoId(app: App): Promise<string> {
  for (let n = 1; ; n++) {
    const id = `demo-${n}`
    if (!(await sessionExists(app, id)) && !(await sessionExists(app, `${id}-fork-1`))) return id
  }
}

/** Send `prompt`, print the turn's transcript, and fail unless it completed. */
async function turn(output: Output, renderer: TranscriptRenderer, agent: AgentHandle, prompt: string): Promise<void> {
  const from = agent.session.seq
  const result = await agent.send(prompt)
  for (const line of renderer.all(agent.session.events.slice(from))) output.line(line)
  if (result.reason.kind !== 'completed') throw new CliError('DEMO_FAILED', `turn ${result.turn} of ${agent.id} ended ${result.reason.kind}`)
}

function turnEndSeq(session: Session, number: number): number {
  const event = session.events.find(e => e.type === 'turn/end' && e.data.turn === number)
  if (event === undefined) throw new CliError('DEMO_FAILED', `turn ${number} of ${session.id} has no turn/end`)
  return event.seq
}

async function tour(context: CommandContext, app: App): Promise<void> {
  const { output } = context
  const agents = app.agents()
  const persistence = app.persistence()
  const id = await freeDemoId(app)
  const renderer = new TranscriptRenderer()
  output.line(output.bold('Logbook demo') + output.dim(` — sessions are stored under ${context.storeRoot}`))

  section(output, 1, `A session with tools: ${id}`)
  const first = await agents.create({ sessionId: id, options: { provider: DEMO_PROVIDER, model: DEMO_MODEL, system: DEMO_SYSTEM } })
  await turn(output, renderer, first, DEMO_PROMPTS.plan)
  const afterTurn1 = first.session.seq
  await first.dispose()
  note(output, `the agent is disposed: ${afterTurn1} events are stored and ${id} is free to open elsewhere`)

  section(output, 2, 'Another process resumes it and is killed in the middle of a tool call')
  note(output, `a child process resumes ${id}; its model calls deploy, which runs until the process is killed`)
  await crashChildDuringDeploy(persistence, id, afterTurn1, context.storeRoot, output.debug, context.signal)
  note(output, 'the deploy call is durable in the log: the child was killed with SIGKILL')
  const stored = await readStored(persistence, id)
  for (const line of renderer.all(stored.events.slice(afterTurn1))) output.line(line)

  section(output, 3, 'Resume after the crash')
  const agent = await agents.resume({ resumeSessionId: id })
  note(output, `the dead process's lock was taken over; resume closed the interrupted turn`)
  for (const line of renderer.all(agent.session.events.slice(stored.events.length))) output.line(line)
  await turn(output, renderer, agent, DEMO_PROMPTS.explain)

  section(output, 4, 'Compaction')
  const result = await app.compaction().compactNow(agent)
  note(output, compactedLine(result))
  let opening: LlmRequest['messages'][number] | undefined
  const stop = app.ctx.on('llm/before-stream', (request: LlmRequest) => {
    if (request.sessionId === id && request.purpose !== 'compaction') opening ??= request.messages[0]
  })
  try {
    await turn(output, renderer, agent, DEMO_PROMPTS.status)
  } finally {
    stop()
  }
  const head = opening?.content[0]
  const headText = head?.type === 'text' ? head.text : ''
  note(output, opening !== undefined && opening.id.startsWith('compaction-')
    ? `turn 4's request started with the summary: "${clip(headText, 60)}"`
    : `turn 4's request did not start with a summary`)

  section(output, 5, 'Fork')
  const forkAt = turnEndSeq(agent.session, 1)
  const parentEvents = agent.session.seq
  const child = await agents.fork({ sourceSessionId: id, at: forkAt, childSessionId: `${id}-fork-1` })
  note(output, `forked ${id} at seq ${forkAt} (the end of turn 1) into ${child.id}`)
  const forkRenderer = new TranscriptRenderer(child.session.header)
  for (const line of forkRenderer.all(child.session.events.slice(child.session.inheritedEventCount))) output.line(line)
  await turn(output, forkRenderer, child, DEMO_PROMPTS.notes)
  if (agent.session.seq !== parentEvents) throw new CliError('DEMO_FAILED', `the fork changed ${id}`)
  note(output, `${id} still has ${parentEvents} events: the fork left it untouched`)

  section(output, 6, 'What the projections and verify say')
  const projections = app.projections()
  const snapshots = [agent, child].map(handle => ({ id: handle.id, values: projections?.snapshot(handle.session).values ?? {} }))
  await agent.dispose()
  await child.dispose()
  for (const { id: sessionId, values } of snapshots) for (const line of summaryLines(sessionId, values)) output.line(line)
  for (const sessionId of [id, `${id}-fork-1`]) {
    const report = await verifySession(persistence, sessionId)
    output.line(`verify ${sessionId}: ${report.status}`)
    if (report.status !== 'ok') throw new CliError('DEMO_FAILED', `verify ${sessionId} found ${report.status} defects`)
  }
  const rel = relative(context.cwd, context.storeRoot)
  const dir = rel === '.logbook' ? '' : ` --dir ${context.storeRoot}`
  output.line()
  output.line(`Look around: pnpm logbook show ${id}${dir}   (add --surface for what the model sees next, --log for every event)`)
  output.line(`             pnpm logbook list${dir}`)
}

/** `demo`. */
export const demo: Command = async (context) => {
  expectPositionals(context.args, [])
  if (context.args.global.config !== undefined) throw usageError('demo runs the embedded app; --config is not supported')
  return withApp(context, async (app) => {
    await tour(context, app)
    return 0
  }, { kind: 'jsonl', root: context.storeRoot })
}
