/** The shared conformance suite (spec 02 §9) against the SQLite backend on a file; crash runs live in the e2e file. */
import { runSessionPersistenceConformance } from '@logbook/session-persistence-conformance'
import { createSqliteFixture, destroySqliteFixture } from './fixture.ts'

runSessionPersistenceConformance({
  name: 'sqlite',
  create: () => createSqliteFixture(),
  destroy: destroySqliteFixture,
  capabilities: { durableAcrossInstances: true, crossProcess: true, damage: 'rows', killSafe: true, locate: true, tornTail: false },
  skip: ['crash'],
})
