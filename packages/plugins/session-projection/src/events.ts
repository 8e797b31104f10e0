/**
 * Cordis declarations of the registry: the `ctx.sessionProjections` service key and the diagnostic event
 * `projection/checkpointed`, emitted after each successful checkpoint write (listener failures are contained).
 */
import type { SessionProjections } from './service.ts'
import type { ProjectionCheckpointedEvent } from './types.ts'

declare module '@deepseek-ai/cordis' {
  interface Context {
    sessionProjections: SessionProjections
  }
  interface Events {
    /** A projection checkpoint of a live session was stored (its `seq` was below the durable cursor). */
    'projection/checkpointed'(event: ProjectionCheckpointedEvent): void
  }
}

export {}
