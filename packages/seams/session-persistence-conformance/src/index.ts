/**
 * `@logbook/session-persistence-conformance` (private, spec 02 §9): one contract suite run against every persistence
 * backend. A backend's `tests/conformance.spec.ts` calls `runSessionPersistenceConformance` with a fixture factory
 * and capability flags; see the README.
 */

export { runSessionPersistenceConformance } from './run.ts'
export { changeOneDigit, rawRecordRow, type RawRecordRow } from './damage.ts'
export { sampleHeader, sampleTurn } from './samples.ts'
export type {
  Awaitable,
  ConformanceCapabilities,
  ConformanceOptions,
  DamageKit,
  LockHolderRecord,
  OperationName,
  StoreFixture,
  WorkerSpec,
} from './types.ts'
