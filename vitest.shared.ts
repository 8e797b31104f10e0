import { defineConfig } from 'vitest/config'

/**
 * The one vitest configuration every package re-exports: tests run against the packages' TypeScript sources
 * (the `source` export condition), so no build is needed before `vitest run`.
 */
export default defineConfig({
  resolve: { conditions: ['source'] },
  ssr: { resolve: { conditions: ['source'] } },
  test: {
    include: ['tests/**/*.spec.ts'],
    testTimeout: 180_000,
    hookTimeout: 180_000,
  },
})
