/** B12 (page) for the PostgreSQL backend: B9's listing over 10,000 sessions (see B9-common.ts); the server is a throwaway one (postgres-server.ts). */
import { B12_SESSIONS, runListing } from './B9-common.ts'
import { withBenchDatabase } from './postgres-server.ts'

await withBenchDatabase(() => runListing('B12', B12_SESSIONS, 'postgres', 'page'))
