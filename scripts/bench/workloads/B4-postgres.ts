/** B4 for the PostgreSQL backend (see b4-pg.ts). */
import { runB4Postgres } from './b4-pg.ts'

await runB4Postgres()
