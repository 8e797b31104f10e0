/**
 * `@logbook/agent-loop` — the harness loop (spec 03 §5): `ctx.agents` creates, resumes and forks agents; an agent
 * runs one turn per prompt — steps of model request, assistant message and tool calls — logging every model-visible
 * input and output to its session.
 */

import { AgentsService } from './service.ts'
import type {
  AgentHandle, AgentStatus, PreStepPayload, RequestErrorDecision, RequestErrorPayload,
} from './types.ts'

declare module '@deepseek-ai/cordis' {
  interface Context {
    agents: AgentsService
  }
  interface Events {
    /**
     * Waterfall before every `step/start`; listeners continue with `return next()`. Not calling `next()` ends the
     * turn `blocked`; throwing ends it `error` with the thrown code (else `HOOK_FAILED`); no step opens either way.
     */
    'agent/pre-step'(payload: PreStepPayload, next: () => unknown): unknown
    /**
     * Waterfall after a failed model attempt that was not cancelled; the default is `{ kind: 'fail' }`, a
     * `{ kind: 'retry' }` repeats the request in the same step (at most `maxRequestRetries` times).
     */
    'agent/request-error'(
      payload: RequestErrorPayload,
      next: () => RequestErrorDecision | Promise<RequestErrorDecision>,
    ): RequestErrorDecision | Promise<RequestErrorDecision>
    /** An agent was created, resumed or forked and is ready for input; listener failures are contained. */
    'agent/created'(agent: AgentHandle): void
    /**
     * An agent's status or turn changed: `turn` is the running turn's number (`running`, `waiting-for-tool`), else
     * `null`; listener failures are contained.
     */
    'agent/status'(agent: AgentHandle, status: AgentStatus, turn: number | null): void
    /** An agent finished its disposal (turn closed, session flushed and detached); listener failures are contained. */
    'agent/disposed'(agent: AgentHandle): void
  }
}

/** The plugin: the `Service` registered as `ctx.agents`. */
export default AgentsService

export { AgentsService }
export { AgentError, type AgentErrorCode } from './errors.ts'
export { BUILTIN_SECTIONS } from './context-sections.ts'
export { INPUT_QUEUED_EVENT } from './input.ts'
export { isRuntimeContextMessage, retainedRuntimeContext, RUNTIME_CONTEXT_KIND } from './runtime-context.ts'
export type {
  AgentCancelKind,
  AgentHandle,
  AgentLoopConfig,
  AgentOptions,
  AgentStatus,
  CancelOptions,
  ConfiguredAgent,
  ContextSection,
  ContextSectionInput,
  CreateAgentInput,
  ForkAgentInput,
  MaintenanceLease,
  PreStepPayload,
  PreStepRequest,
  QueuedInput,
  RequestErrorDecision,
  RequestErrorPayload,
  ResumeAgentInput,
  RuntimeContextConfig,
  RuntimeContextMessage,
  TurnResult,
  WatchOptions,
} from './types.ts'
