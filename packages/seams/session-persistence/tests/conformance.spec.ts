// The shared conformance suite against the in-memory backend. Same-named `storeName`s share storage, so a unique
// name per fixture gives isolated storage that survives remounts in this process (durableAcrossInstances).
// The suite is imported by path: this package cannot list the conformance package as a dependency (it depends on us).
import { randomUUID } from 'node:crypto'
import MemorySessionPersistence from '../src/index.ts'
import { runSessionPersistenceConformance } from '../../session-persistence-conformance/src/index.ts'

runSessionPersistenceConformance({
  name: 'memory',
  create: () => ({ plugin: MemorySessionPersistence, config: { storeName: `conformance-${randomUUID()}` } }),
  destroy: () => {},
  capabilities: { durableAcrossInstances: true, crossProcess: false, damage: null, killSafe: false, locate: false, tornTail: true },
})
