import { mergeConfig } from 'vitest/config'
import shared from '../../vitest.shared.ts'

/** The shared configuration, plus a global setup that builds the CLI so tests spawn it as a person runs it. */
export default mergeConfig(shared, { test: { globalSetup: ['tests/helpers/global-setup.ts'] } })
