import { runSessionPersistenceConformance } from '@logbook/session-persistence-conformance'
import { jsonlTarget } from './fixture.ts'

// SIGKILL crash loops of the shared suite (seeded, seed printed; LOGBOOK_CRASH_SEED replays a run).
runSessionPersistenceConformance({ ...jsonlTarget('fsync'), only: ['crash'] })
