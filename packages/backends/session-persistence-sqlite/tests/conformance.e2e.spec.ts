/** The conformance crash runs (SIGKILLed child processes, seeded, seed printed) against the SQLite backend. */
import { runSessionPersistenceConformance } from '@logbook/session-persistence-conformance'
import { createSqliteFixture, destroySqliteFixture } from './fixture.ts'

runSessionPersistenceConformance({
  name: 'sqlite',
  create: () => createSqliteFixture(),
  destroy: destroySqliteFixture,
  capabilities: { durableAcrossInstances: true, crossProcess: true, damage: 'rows', killSafe: true, locate: true, tornTail: false },
  only: ['crash'],
})
