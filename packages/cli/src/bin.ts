#!/usr/bin/env node
/**
 * The `logbook` executable: runs the command line and exits with its code. A closed stdout (`logbook show … |
 * head`) ends the process quietly; a process kept alive by a stray handle still exits shortly after the command.
 */

import { main } from './main.ts'

process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0)
  throw error
})

const code = await main(process.argv.slice(2))
process.exitCode = code
setTimeout(() => process.exit(code), 1000).unref()
