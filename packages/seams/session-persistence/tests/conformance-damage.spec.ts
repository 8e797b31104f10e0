// The [dmg] cases of the shared conformance suite against the memory backend with its damage kit (`damage: 'rows'`):
// records are edited in the named memory store. tests/conformance.spec.ts runs everything else.
import { randomUUID } from 'node:crypto'
import { runSessionPersistenceConformance } from '../../session-persistence-conformance/src/index.ts'
import MemorySessionPersistence from '../src/index.ts'
import { memoryDamage } from './memory-damage.ts'

runSessionPersistenceConformance({
  name: 'memory (damage)',
  create: () => {
    const storeName = `conformance-damage-${randomUUID()}`
    return { plugin: MemorySessionPersistence, config: { storeName }, damage: memoryDamage(storeName) }
  },
  destroy: () => {},
  capabilities: { durableAcrossInstances: true, crossProcess: false, damage: 'rows', killSafe: false, locate: false, tornTail: true },
  only: ['torn-tail', 'corruption', 'repair', 'format', 'list', 'ownership', 'write-behind', 'resume', 'projection-checkpoints'],
})
