/** The shared conformance suite (spec 02 §9) against PostgreSQL; crash runs live in the e2e file. */
import { runSessionPersistenceConformance } from '@logbook/session-persistence-conformance'
import { createPostgresFixture, destroyPostgresFixture, useTestDatabase } from './fixture.ts'

const database = useTestDatabase()

runSessionPersistenceConformance({
  name: 'postgres',
  create: () => createPostgresFixture(database()),
  destroy: destroyPostgresFixture,
  capabilities: { durableAcrossInstances: true, crossProcess: true, damage: 'rows', killSafe: true, locate: false, tornTail: false },
  skip: ['crash'],
})
