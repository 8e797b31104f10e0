/**
 * Types of the checkpoint policy (spec 02 §7): its config, the three checkpoint points and the `checkpoint/passed`
 * payload. This file holds types only.
 */

/** Where a checkpoint is taken. */
export type CheckpointPoint = 'model-request' | 'tool-body' | 'step-boundary'

/** Which points the policy checkpoints (02 §1.5); each defaults to `true`. */
export interface CheckpointPolicyConfig {
  readonly modelRequests: boolean
  readonly toolBodies: boolean
  readonly stepBoundaries: boolean
}

/** Payload of `checkpoint/passed`: every event up to `requiredSeq` (the flush target − 1) is durable. */
export interface CheckpointPassedEvent {
  readonly sessionId: string
  readonly point: CheckpointPoint
  readonly requiredSeq: number
  /** The call whose body may now run (`tool-body` only). */
  readonly callId?: string
}
