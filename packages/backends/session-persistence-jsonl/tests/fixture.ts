/**
 * The JSONL targets of the conformance suite (02 §9): a fresh store root per test under the OS temp dir, the damage
 * kit, and the worker spec that mounts the same store in a child process.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { ConformanceOptions, StoreFixture } from '@logbook/session-persistence-conformance'
import JsonlSessionPersistence from '../src/index.ts'
import { jsonlDamage } from './damage.ts'

/** Absolute path of the plugin module a worker mounts. */
export const PLUGIN_MODULE = fileURLToPath(new URL('../src/index.ts', import.meta.url))

/** A fresh store; `root` is where its sessions live. */
export async function createJsonlFixture(durability: 'fsync' | 'none'): Promise<StoreFixture & { readonly root: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'logbook-jsonl-'))
  const root = join(dir, 'store')
  const config = { root, durability }
  return { root, plugin: JsonlSessionPersistence, config, damage: jsonlDamage(root), worker: { module: PLUGIN_MODULE, config } }
}

/** The conformance options of the `jsonl-<durability>` target. */
export function jsonlTarget(durability: 'fsync' | 'none'): ConformanceOptions {
  return {
    name: `jsonl-${durability}`,
    create: () => createJsonlFixture(durability),
    destroy: async (fixture) => {
      await rm(join((fixture.config as { root: string }).root, '..'), { recursive: true, force: true })
    },
    capabilities: { durableAcrossInstances: true, crossProcess: true, damage: 'bytes', killSafe: true, locate: true, tornTail: true },
  }
}
