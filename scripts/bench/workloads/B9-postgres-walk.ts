/** B9 (walk) for the PostgreSQL backend (see B9-common.ts); the server is a throwaway one (postgres-server.ts). */
import { runB9 } from './B9-common.ts'
import { withBenchDatabase } from './postgres-server.ts'

await withBenchDatabase(() => runB9('postgres', 'walk'))
