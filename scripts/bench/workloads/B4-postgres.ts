/** B4 for the PostgreSQL backend (see B4-postgres-floor.ts). */
import { runB4Postgres } from './B4-postgres-floor.ts'

await runB4Postgres()
