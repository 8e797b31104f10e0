/** What the global setup provides to the test files (vitest `inject`). Types only. */
import type {} from 'vitest'

declare module 'vitest' {
  interface ProvidedContext {
    /** Admin connection string of the run's PostgreSQL server (database `postgres`). */
    pgAdminUrl: string
  }
}
