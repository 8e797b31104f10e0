/**
 * `ctx.agents` (spec 03 §5.1, §5.6, §5.7, §7): the agent factory, the watch of a live session's events and the
 * registry of runtime-context sections. Agents are owned by the calling plugin's fiber and by this plugin: unloading
 * either disposes them in order (turn closed, session flushed, then detached).
 */

import { randomUUID } from 'node:crypto'
import { type Context, Service } from '@deepseek-ai/cordis'
import { messageOf, type SessionEvent, type SessionId } from '@logbook/session'
import { Agent } from './agent.ts'
import { AgentLoopConfigSchema } from './config.ts'
import { AgentError } from './errors.ts'
import { INPUT_QUEUED_EVENT } from './input.ts'
import { createAgent, forkAgent } from './lifecycle.ts'
import { resumeAgent } from './resume.ts'
import { LoopRuntime } from './runtime.ts'
import type {
  AgentHandle, AgentLoopConfig, AgentOptions, ConfiguredAgent, ContextSection, CreateAgentInput, ForkAgentInput,
  ResumeAgentInput, WatchOptions,
} from './types.ts'
import { watchSession } from './watch.ts'

function entryOptions(entry: ConfiguredAgent): AgentOptions {
  return {
    provider: entry.provider,
    model: entry.model,
    ...(entry.maxTokens === undefined ? {} : { maxTokens: entry.maxTokens }),
    ...(entry.system === undefined ? {} : { system: entry.system }),
    ...(entry.tools === undefined ? {} : { tools: entry.tools }),
  }
}

/** The harness loop service (ctx key `agents`). */
export class AgentsService extends Service {
  static readonly inject = ['sessions', 'llm', 'tools']
  static readonly Config = AgentLoopConfigSchema

  /** @internal The state, on a plain object (Cordis hands callers a tracing proxy of the service). */
  readonly runtime: LoopRuntime

  constructor(ctx: Context, config: AgentLoopConfig) {
    super(ctx, 'agents')
    const runtime = this.runtime = new LoopRuntime(ctx, config)
    ctx.sessions.registerEventType(INPUT_QUEUED_EVENT)
    ctx.sessions.addCheck((session, event) => runtime.admit(session, event))
    // One ordered teardown: disposers run in reverse, so the agents are disposed before the claim listeners and
    // the session/event subscription go, and watches still open end last.
    ctx.effect(function* () {
      yield* runtime.trackClaims()
      yield* runtime.followers.listen(ctx)
      yield () => runtime.followers.endAll()
      yield async () => {
        const results = await Promise.allSettled([...runtime.agents].map(agent => agent.dispose()))
        for (const result of results) {
          if (result.status === 'rejected') runtime.warn(`disposing an agent failed: ${messageOf(result.reason)}`)
        }
      }
    }, 'agents teardown')
  }

  /**
   * Create a session (optionally seeded) and an agent on it; the agent is owned by the calling plugin.
   * @throws AgentError `INVALID_OPTIONS`, `SESSION_ALREADY_EXISTS` (the id is live or has a stored log); SessionError
   * from `ctx.sessions` (`INVALID_SESSION_ID`, seed errors).
   */
  create(input: CreateAgentInput): Promise<AgentHandle> {
    return createAgent(this.runtime, this.ctx, input)
  }

  /**
   * Resume a stored session in spec 02 §4.3's order and put an agent on it; missing options come from the newest
   * logged `request/header`.
   * @throws AgentError `PERSISTENCE_NOT_CONFIGURED`, `INVALID_OPTIONS`; `SESSION_LOCKED` and other persistence errors;
   * `SESSION_CORRUPT` when core rejects the stored log; the signal's reason when aborted.
   */
  resume(input: ResumeAgentInput): Promise<AgentHandle> {
    return resumeAgent(this.runtime, this.ctx, input)
  }

  /**
   * Fork a live or stored session at `at` (default: its last seq) into `childSessionId` (default
   * `<source>-fork-<n>`) and put an agent on the child; the source is untouched.
   * @throws SessionError `INVALID_SESSION_ID`; SessionForkError `SESSION_ALREADY_EXISTS`, `SESSION_NOT_FOUND`,
   * `INVALID_BOUNDARY` (01 §7's order, stored logs counting); AgentError `INVALID_OPTIONS`.
   */
  fork(input: ForkAgentInput): Promise<AgentHandle> {
    return forkAgent(this.runtime, this.ctx, input)
  }

  /**
   * Create or resume every configured agent in order, queue its prompts, and resolve to the handles; the agents
   * run concurrently. A prompt's rejection (discarded, disposed) is not reported here: watch the agent instead.
   * @throws what `create` / `resume` throw for an entry; earlier entries keep running.
   */
  async startConfigured(): Promise<AgentHandle[]> {
    const handles: AgentHandle[] = []
    for (const entry of this.runtime.config.agents) {
      const options = entryOptions(entry)
      const agent = entry.resumeSessionId !== undefined
        ? await resumeAgent(this.runtime, this.ctx, { resumeSessionId: entry.resumeSessionId, options })
        : await createAgent(this.runtime, this.ctx, { sessionId: entry.sessionId ?? `${entry.id}-${randomUUID()}`, options })
      for (const prompt of entry.prompts ?? []) {
        agent.send(prompt).catch(() => {
          // Reported through the agent: its session log and status; startConfigured only queues.
        })
      }
      handles.push(agent)
    }
    return handles
  }

  /**
   * An async iterator of the committed events of the live session `sessionId` (from `fromSeq`, else from the next
   * commit), fed by the loop's `session/event` subscription; it ends when the session leaves the store, the loop is
   * unloaded, `signal` aborts or the consumer stops. It holds at most `watchBufferEvents` unread events.
   * @throws AgentError `SESSION_NOT_LIVE`, `INVALID_WATCH`; the iterator rejects `WATCH_OVERFLOW` after the held
   * events when the consumer fell behind.
   */
  watch(sessionId: string, options: WatchOptions = {}): AsyncIterableIterator<SessionEvent> {
    const session = this.runtime.sessions.get(sessionId as SessionId)
    if (session === undefined) throw new AgentError('SESSION_NOT_LIVE', `session "${sessionId}" is not live in this process`)
    return watchSession(this.runtime.followers, session, this.runtime.config.watchBufferEvents, options)
  }

  /**
   * Add a named section to every agent's runtime-context message (after the built-ins, in registration order);
   * an effect on the calling fiber, whose disposal removes it.
   * @throws AgentError `INVALID_CONTEXT_SECTION`, `CONTEXT_SECTION_TAKEN`.
   */
  registerContextSection(section: ContextSection): () => void {
    const sections = this.runtime.contextSections
    return this.ctx.effect(() => sections.add(section), 'agents.registerContextSection()')
  }

  /** The `agents[]` entries of the plugin config, as `startConfigured` reads them (clients take options from them). */
  configured(): readonly ConfiguredAgent[] {
    return this.runtime.config.agents
  }

  /** The live agents of this plugin, in creation order. */
  list(): AgentHandle[] {
    return [...this.runtime.agents].filter((agent): agent is Agent => agent instanceof Agent)
  }
}
