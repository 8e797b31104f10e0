/**
 * `logbook chat [--config <yml>] [--resume <id> | --fork <id>[@<seq>]]` (spec 03 §6.2): an interactive client of
 * one agent. Messages are sent one at a time, the reply streams as it arrives, Ctrl+C cancels the running turn (it
 * ends `aborted`, and the log says so) and at an empty prompt leaves; slash commands act on the session. On exit
 * the agent is disposed (its session flushed) and the command that resumes the session is printed.
 */

import { randomBytes } from 'node:crypto'
import type { AgentHandle, AgentOptions, AgentsService, ConfiguredAgent } from '@logbook/agent-loop'
import { codeOf } from '@logbook/session'
import type { App } from '../app/app.ts'
import { DEMO_MODEL, DEMO_PROVIDER } from '../app/embedded.ts'
import { expectPositionals } from '../args.ts'
import { sessionIdArg, withApp, type Command, type CommandContext } from '../command.ts'
import { openChatInput, type ChatInput } from '../chat/terminal.ts'
import { runSlash, type SlashContext } from '../chat/slash.ts'
import { ChatView } from '../chat/view.ts'
import { CliError, oneLine, usageError } from '../errors.ts'

/** Which session the chat is in. */
type Start =
  | { readonly kind: 'new' }
  | { readonly kind: 'resume'; readonly id: string }
  | { readonly kind: 'fork'; readonly id: string; readonly at?: number }

function startOf(context: CommandContext): Start {
  const { options } = context.args
  const resume = typeof options.resume === 'string' ? options.resume : undefined
  const fork = typeof options.fork === 'string' ? options.fork : undefined
  if (resume !== undefined && fork !== undefined) throw usageError('--resume and --fork cannot be combined')
  if (resume !== undefined) return { kind: 'resume', id: sessionIdArg(resume) }
  if (fork === undefined) return { kind: 'new' }
  const match = /^(.*?)(?:@(\d+))?$/.exec(fork)!
  return match[2] === undefined ? { kind: 'fork', id: sessionIdArg(match[1]!) } : { kind: 'fork', id: sessionIdArg(match[1]!), at: Number(match[2]) }
}

function entryOptions(entry: ConfiguredAgent): AgentOptions {
  return {
    provider: entry.provider, model: entry.model,
    ...(entry.maxTokens === undefined ? {} : { maxTokens: entry.maxTokens }),
    ...(entry.system === undefined ? {} : { system: entry.system }),
    ...(entry.tools === undefined ? {} : { tools: entry.tools }),
  }
}

/** The options of a new session: the config's first `agents[]` entry, else the embedded scripted model. */
function defaultOptions(context: CommandContext, agents: AgentsService): AgentOptions {
  const entry = agents.configured()[0]
  if (entry !== undefined) return entryOptions(entry)
  if (context.args.global.config === undefined) return { provider: DEMO_PROVIDER, model: DEMO_MODEL }
  throw new CliError('NOT_CONFIGURED', 'chat needs a model: add an agents[] entry with provider and model to the agent-loop config')
}

/** Resume or fork with the options of the log's newest request header, else with the default options. */
async function withLoggedOptions(open: (options?: AgentOptions) => Promise<AgentHandle>, fallback: () => AgentOptions): Promise<AgentHandle> {
  try {
    return await open()
  } catch (error) {
    if (codeOf(error) !== 'INVALID_OPTIONS') throw error
    return open(fallback())
  }
}

async function startAgent(context: CommandContext, agents: AgentsService, start: Start): Promise<AgentHandle> {
  const fallback = (): AgentOptions => defaultOptions(context, agents)
  switch (start.kind) {
    case 'resume':
      return withLoggedOptions(options => agents.resume({ resumeSessionId: start.id, signal: context.signal, ...(options === undefined ? {} : { options }) }), fallback)
    case 'fork':
      return withLoggedOptions(options => agents.fork({
        sourceSessionId: start.id, ...(start.at === undefined ? {} : { at: start.at }), ...(options === undefined ? {} : { options }),
      }), fallback)
    case 'new':
      return agents.create({ sessionId: `chat-${randomBytes(4).toString('hex')}`, meta: { cwd: context.cwd }, options: fallback() })
  }
}

/** `logbook chat --resume <id>` with the options that select the same store. */
function resumeCommand(context: CommandContext, id: string): string {
  const { global } = context.args
  const store = global.config !== undefined ? ` --config ${global.config}` : global.dir !== undefined ? ` --dir ${global.dir}` : ''
  return `logbook chat${store} --resume ${id}`
}

/** The chat loop: one message or command at a time, until exit. */
class Chat {
  private readonly queue: string[] = []
  private busy = false
  private turnRunning = false
  private ended = false
  private exited = false
  private readonly view: ChatView
  private input!: ChatInput
  private finish!: () => void
  readonly done = new Promise<void>(resolve => { this.finish = resolve })

  constructor(private readonly context: CommandContext, private readonly app: App, public agent: AgentHandle) {
    this.view = new ChatView(context.output, process.stdin.isTTY === true && process.stdout.isTTY === true)
  }

  start(): void {
    this.view.follow(this.app.agents(), this.agent)
    this.input = openChatInput(process.stdin, process.stdout, {
      message: text => {
        this.queue.push(text)
        void this.pump()
      },
      interrupt: () => this.interrupt(),
      end: () => {
        this.ended = true
        void this.pump()
      },
    })
    this.input.prompt()
  }

  private interrupt(): void {
    if (this.turnRunning) this.agent.cancel('user')
    else if (this.input.hasText()) this.input.clearLine()
    else this.exit()
  }

  private exit(): void {
    if (this.exited) return
    this.exited = true
    this.input.close()
    this.view.stop()
    this.finish()
  }

  private async pump(): Promise<void> {
    if (this.busy) return
    this.busy = true
    while (this.queue.length > 0 && !this.exited) await this.handle(this.queue.shift()!)
    this.busy = false
    if (this.ended && this.queue.length === 0) this.exit()
    else this.input.prompt()
  }

  private async handle(text: string): Promise<void> {
    if (text.trim() === '') return
    try {
      if (text.trimStart().startsWith('/')) {
        if ((await runSlash(this.slashContext(), text)) === 'exit') this.exit()
        return
      }
      this.turnRunning = true
      const result = await this.agent.send(text)
      await this.view.caughtUp(result.endSeq)
    } catch (error) {
      this.context.output.error(`${oneLine(error)} [${codeOf(error) ?? 'UNEXPECTED'}]`)
    } finally {
      this.turnRunning = false
    }
  }

  private slashContext(): SlashContext {
    return {
      app: this.app,
      output: this.context.output,
      agent: this.agent,
      switchTo: async (next) => {
        const previous = this.agent
        this.agent = next
        this.view.follow(this.app.agents(), next)
        await previous.dispose()
      },
    }
  }
}

/** `chat`. */
export const chat: Command = async (context) => {
  expectPositionals(context.args, [])
  const start = startOf(context)
  return withApp(context, async (app) => {
    const agent = await startAgent(context, app.agents(), start)
    const session = new Chat(context, app, agent)
    const how = start.kind === 'new' ? 'new session' : start.kind === 'resume' ? 'resumed' : `forked from ${start.id}`
    context.output.note(`logbook chat: ${agent.id} (${how}); /help lists commands, Ctrl+C cancels a reply, /exit leaves`)
    session.start()
    await session.done
    await session.agent.dispose()
    context.output.line(`to resume: ${resumeCommand(context, session.agent.id)}`)
    return 0
  }, undefined, { runtimeContext: true })
}
