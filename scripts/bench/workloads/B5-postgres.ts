/** B5 for the PostgreSQL backend (see B4-postgres-floor.ts). */
import { runB5Postgres } from './B4-postgres-floor.ts'

await runB5Postgres()
