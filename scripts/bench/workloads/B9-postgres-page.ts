/** B9 (page) for the PostgreSQL backend (see b9.ts); the server is a throwaway one (pg.ts). */
import { runB9 } from './b9.ts'
import { withBenchDatabase } from './pg.ts'

await withBenchDatabase(() => runB9('postgres', 'page'))
