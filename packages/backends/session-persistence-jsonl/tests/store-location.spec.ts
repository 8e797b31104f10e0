/** P-137: the JSONL backend reports its root folder as the store location, before anything is created. */
import { existsSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { JsonlApp, tempRoot } from './mount.ts'

describe('storeLocation', () => {
  it('P-137 is the absolute root folder, reported without creating it', async () => {
    const { root, cleanup } = await tempRoot()
    const mounted = await JsonlApp.start(root)
    try {
      expect(mounted.persistence.storeLocation).toEqual({ kind: 'directory', path: root })
      expect(Object.isFrozen(mounted.persistence.storeLocation)).toBe(true)
      expect(existsSync(root)).toBe(false)
    } finally {
      await mounted.stop()
      await cleanup()
    }
  })
})
