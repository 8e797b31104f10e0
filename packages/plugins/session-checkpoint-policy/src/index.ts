/**
 * `@logbook/session-checkpoint-policy` (spec 02 §7, D13): durability checkpoints before model requests, tool bodies
 * and steps. A function plugin: it only listens to the awaited hooks of `@logbook/llm`, `@logbook/tools` and
 * `@logbook/agent-loop`.
 */

import type { Context } from '@deepseek-ai/cordis'
import Schema from '@deepseek-ai/schemastery'
import type {} from '@logbook/agent-loop'
import type {} from '@logbook/llm'
import type {} from '@logbook/session-persistence'
import type {} from '@logbook/tools'
import { installPolicy } from './policy.ts'
import type { CheckpointPassedEvent, CheckpointPolicyConfig } from './types.ts'

declare module '@deepseek-ai/cordis' {
  interface Events {
    /** After a successful checkpoint: every event up to `requiredSeq` is durable. Listener failures are contained. */
    'checkpoint/passed'(event: CheckpointPassedEvent): void
  }
}

/** Plugin name. */
export const name = 'session-checkpoint-policy'
/** The hooks are events; the policy needs the store and a persistence backend. */
export const inject = ['sessions', 'sessionPersistence']

/** Which points to checkpoint; every one defaults to `true` (02 §1.5). */
export const Config: Schema<Partial<CheckpointPolicyConfig>, CheckpointPolicyConfig> = Schema.object({
  modelRequests: Schema.boolean().default(true).description('Flush before every model request (llm/before-stream).'),
  toolBodies: Schema.boolean().default(true).description('Flush before every top-level tool body (tools/before-execute).'),
  stepBoundaries: Schema.boolean().default(true).description('Flush before every step (agent/pre-step).'),
}) as unknown as Schema<Partial<CheckpointPolicyConfig>, CheckpointPolicyConfig>

/**
 * Install the enabled checkpoints. Each flushes a session live in `ctx.sessions`, then emits `checkpoint/passed`;
 * a failed flush throws `CheckpointError` (`CHECKPOINT_FAILED`), never swallowed.
 */
export function apply(ctx: Context, config: CheckpointPolicyConfig): void {
  installPolicy(ctx, config)
}

export { CheckpointError, type CheckpointErrorCode } from './errors.ts'
export type { CheckpointPassedEvent, CheckpointPoint, CheckpointPolicyConfig } from './types.ts'
