import { defineConfig, mergeConfig } from 'vitest/config'
import shared from '../../../vitest.shared.ts'

/** The shared configuration plus one throwaway PostgreSQL server per run (tests/server/global-setup.ts). */
export default mergeConfig(shared, defineConfig({ test: { globalSetup: ['tests/server/global-setup.ts'] } }))
