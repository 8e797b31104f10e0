/**
 * `ctx.agents` (spec 03 §5.1, §7): the agent factory. Agents are owned by the calling plugin's fiber and by this
 * plugin: unloading either disposes them in order (turn closed, session flushed, then detached).
 */

import { randomUUID } from 'node:crypto'
import { type Context, Service } from '@deepseek-ai/cordis'
import { messageOf } from '@logbook/session'
import { Agent } from './agent.ts'
import { AgentLoopConfigSchema } from './config.ts'
import { createAgent, forkAgent } from './lifecycle.ts'
import { resumeAgent } from './resume.ts'
import { LoopRuntime } from './runtime.ts'
import type {
  AgentHandle, AgentLoopConfig, AgentOptions, ConfiguredAgent, CreateAgentInput, ForkAgentInput, ResumeAgentInput,
} from './types.ts'

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
    // One ordered teardown: disposers run in reverse, so the agents are disposed before the claim listeners go.
    ctx.effect(function* () {
      yield* runtime.trackClaims()
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

  /** The live agents of this plugin, in creation order. */
  list(): AgentHandle[] {
    return [...this.runtime.agents].filter((agent): agent is Agent => agent instanceof Agent)
  }
}
