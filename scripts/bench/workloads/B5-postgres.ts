/** B5 for the PostgreSQL backend (see b4-pg.ts). */
import { runB5Postgres } from './b4-pg.ts'

await runB5Postgres()
