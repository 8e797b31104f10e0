/**
 * vitest globalSetup: one throwaway PostgreSQL server for the whole run (or `LOGBOOK_PG_URL`), provided to the test
 * files as `pgAdminUrl` and stopped at the end. No server → the run fails with one line saying why.
 */

import type { TestProject } from 'vitest/node'
import { startThrowawayServer } from './throwaway.ts'
import './provided.ts'

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startThrowawayServer()
  project.provide('pgAdminUrl', server.adminUrl)
  return () => server.stop()
}
