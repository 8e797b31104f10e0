/** B12 (walk) for the SQLite backend: B9's listing over 10,000 sessions (see B9-common.ts). */
import { B12_SESSIONS, runListing } from './B9-common.ts'

runListing('B12', B12_SESSIONS, 'sqlite', 'walk')
