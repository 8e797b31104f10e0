/** `runSessionPersistenceConformance` (spec 02 §9): registers one vitest suite per operation file. */

import { describe } from 'vitest'
import { appendCases } from './cases/append.ts'
import { corruptionCases } from './cases/corruption.ts'
import { crashCases } from './cases/crash.ts'
import { createCases } from './cases/create.ts'
import { crossProcessCases } from './cases/cross-process.ts'
import { deleteCases } from './cases/delete.ts'
import { flushCases } from './cases/flush.ts'
import { forkLineageCases } from './cases/fork-lineage.ts'
import { formatCases } from './cases/format.ts'
import { inspectCases } from './cases/inspect.ts'
import { largeCases } from './cases/large.ts'
import { listCases } from './cases/list.ts'
import { loadCases } from './cases/load.ts'
import { openCases } from './cases/open.ts'
import { ownershipCases } from './cases/ownership.ts'
import { projectionCheckpointCases } from './cases/projection-checkpoints.ts'
import { readFromCases } from './cases/read-from.ts'
import { readCases } from './cases/read.ts'
import { repairCases } from './cases/repair.ts'
import { resumeCases } from './cases/resume.ts'
import { teardownCases } from './cases/teardown.ts'
import { tornTailCases } from './cases/torn-tail.ts'
import { writeBehindCases } from './cases/write-behind.ts'
import type { ConformanceCapabilities, ConformanceOptions, OperationName } from './types.ts'

/** Every operation file, in registration order. */
const OPERATIONS: Readonly<Record<OperationName, (options: ConformanceOptions) => void>> = Object.freeze({
  'create': createCases,
  'open': openCases,
  'append': appendCases,
  'read': readCases,
  'read-from': readFromCases,
  'inspect': inspectCases,
  'list': listCases,
  'delete': deleteCases,
  'write-behind': writeBehindCases,
  'flush': flushCases,
  'ownership': ownershipCases,
  'cross-process': crossProcessCases,
  'resume': resumeCases,
  'load': loadCases,
  'torn-tail': tornTailCases,
  'corruption': corruptionCases,
  'repair': repairCases,
  'format': formatCases,
  'fork-lineage': forkLineageCases,
  'projection-checkpoints': projectionCheckpointCases,
  'large': largeCases,
  'teardown': teardownCases,
  'crash': crashCases,
})

/**
 * Operations every case of which needs a capability: a target without it gets no suite for the operation at all
 * (an empty `describe` is an error in vitest). Cases of the other files are filtered one by one (`itUnless`).
 */
const NEEDS: Readonly<Partial<Record<OperationName, (caps: ConformanceCapabilities) => boolean>>> = Object.freeze({
  'corruption': caps => caps.damage !== null,
  'crash': caps => caps.killSafe,
  'cross-process': caps => caps.crossProcess,
  'torn-tail': caps => caps.damage !== null && caps.tornTail,
})

/** Check that the capability flags and their requirements are consistent. @throws TypeError naming the problem. */
function validate(options: ConformanceOptions): void {
  const { capabilities: caps, name } = options
  if (typeof name !== 'string' || name === '') throw new TypeError('runSessionPersistenceConformance: name must be a non-empty string')
  if (caps.killSafe && !caps.crossProcess) throw new TypeError(`${name}: killSafe requires crossProcess (both need a worker)`)
  if (caps.crossProcess && !caps.durableAcrossInstances) throw new TypeError(`${name}: crossProcess requires durableAcrossInstances`)
  if (![null, 'bytes', 'rows'].includes(caps.damage)) throw new TypeError(`${name}: damage must be 'bytes', 'rows' or null`)
  if (typeof caps.tornTail !== 'boolean') throw new TypeError(`${name}: tornTail must be a boolean`)
  for (const op of [...(options.only ?? []), ...(options.skip ?? [])]) {
    if (!Object.hasOwn(OPERATIONS, op)) throw new TypeError(`${name}: unknown operation "${op}"`)
  }
}

/**
 * Register the conformance suite for one backend target: a `describe` per operation (filtered by `only`/`skip`),
 * each test on a fresh fixture from `create()`; cases a capability rules out are not registered.
 * @throws TypeError when the options are inconsistent (e.g. `killSafe` without `crossProcess`).
 */
export function runSessionPersistenceConformance(options: ConformanceOptions): void {
  validate(options)
  describe(`session persistence conformance: ${options.name}`, () => {
    for (const [op, register] of Object.entries(OPERATIONS) as [OperationName, (o: ConformanceOptions) => void][]) {
      if (options.only && !options.only.includes(op)) continue
      if (options.skip?.includes(op)) continue
      if (NEEDS[op]?.(options.capabilities) === false) continue
      describe(op, () => register(options))
    }
  })
}
