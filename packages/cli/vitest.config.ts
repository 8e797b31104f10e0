import { mergeConfig } from 'vitest/config'
import shared from '../../vitest.shared.ts'

/**
 * The shared configuration, plus a global setup that builds the CLI so tests spawn it as a person runs it, and the
 * PostgreSQL backend's throwaway server (or `LOGBOOK_PG_URL`) for the transfer and PostgreSQL example tests.
 */
export default mergeConfig(shared, {
  test: {
    globalSetup: ['tests/helpers/global-setup.ts', '../backends/session-persistence-postgres/tests/server/global-setup.ts'],
  },
})
