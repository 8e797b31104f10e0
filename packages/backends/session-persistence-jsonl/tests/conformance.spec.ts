import { runSessionPersistenceConformance } from '@logbook/session-persistence-conformance'
import { jsonlTarget } from './fixture.ts'

// The crash loops run in conformance.e2e.spec.ts. Locks do not depend on durability, so the cross-process cases
// (real child processes, the slowest part) run once, against jsonl-fsync.
runSessionPersistenceConformance({ ...jsonlTarget('fsync'), skip: ['crash'] })
runSessionPersistenceConformance({ ...jsonlTarget('none'), skip: ['crash', 'cross-process'] })
