/** B2 for the PostgreSQL backend (see b2.ts); the server is a throwaway one (pg.ts). */
import { runB2 } from './b2.ts'
import { withBenchDatabase } from './pg.ts'

await withBenchDatabase(() => runB2('postgres'))
