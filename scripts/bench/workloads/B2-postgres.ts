/** B2 for the PostgreSQL backend (see B2-common.ts); the server is a throwaway one (postgres-server.ts). */
import { runB2 } from './B2-common.ts'
import { withBenchDatabase } from './postgres-server.ts'

await withBenchDatabase(() => runB2('postgres'))
