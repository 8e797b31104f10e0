/**
 * Cordis declarations of the persistence seam (spec 02 §1.8): the `ctx.sessionPersistence` service key and the
 * diagnostic events. They are emitted with `emit`; listener failures are contained and logged.
 */
import type { SessionPersistence } from './service.ts'
import type { PersistenceClaimEvent, PersistenceCommittedEvent, PersistenceWriteFailedEvent } from './types.ts'

declare module '@deepseek-ai/cordis' {
  interface Context {
    sessionPersistence: SessionPersistence
  }
  interface Events {
    /** After each durable append, materialisation or cut. */
    'persistence/committed'(event: PersistenceCommittedEvent): void
    /** After each failed write of a live writer (init failures included). */
    'persistence/write-failed'(event: PersistenceWriteFailedEvent): void
    /** A claim was registered in this coordinator. */
    'persistence/claimed'(event: PersistenceClaimEvent): void
    /** A claim was released. */
    'persistence/released'(event: PersistenceClaimEvent): void
  }
}

export {}
