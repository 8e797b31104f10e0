/**
 * Decides how the tests spawn `logbook`. Preferred: the built binary (`node dist/bin.js`), after building the
 * CLI — possible when every workspace package it imports has a `dist/` newer than its sources (as after
 * `pnpm build`, or under `pnpm test`, where turbo builds dependencies first). Otherwise, or with
 * `LOGBOOK_TEST_BIN=source`: from sources through tsx, exactly as `pnpm logbook` runs it.
 */

import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type { TestProject } from 'vitest/node'

const cliRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')

declare module 'vitest' {
  export interface ProvidedContext {
    logbookCommand: { readonly argv: readonly string[]; readonly mode: 'built' | 'source' }
  }
}

function newestMtime(dir: string): number {
  let newest = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs)
  }
  return newest
}

/** Workspace packages the CLI imports (directly or through each other) whose `dist/` is missing or stale. */
function staleDependencies(): string[] {
  const seen = new Set<string>()
  const stale: string[] = []
  const visit = (root: string): void => {
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> }
    for (const name of Object.keys(manifest.dependencies ?? {})) {
      if (!name.startsWith('@logbook/') || seen.has(name)) continue
      seen.add(name)
      const dir = realpathSync(join(root, 'node_modules', name))
      const built = join(dir, 'dist', 'index.js')
      if (!existsSync(built) || statSync(built).mtimeMs < newestMtime(join(dir, 'src'))) stale.push(name)
      visit(dir)
    }
  }
  visit(cliRoot)
  return stale
}

function sourceCommand(): readonly string[] {
  const tsx = pathToFileURL(createRequire(join(cliRoot, 'package.json')).resolve('tsx')).href
  return ['--conditions=source', '--import', tsx, join(cliRoot, 'src', 'bin.ts')]
}

/** Build the CLI when possible and provide the command line the tests spawn. */
export default function setup(project: TestProject): void {
  let mode: 'built' | 'source' = process.env.LOGBOOK_TEST_BIN === 'source' ? 'source' : 'built'
  if (mode === 'built') {
    const stale = staleDependencies()
    if (stale.length > 0) {
      console.warn(`[logbook tests] running the CLI from sources: no up-to-date dist/ for ${stale.join(', ')} (run pnpm build to test the built binary)`)
      mode = 'source'
    }
  }
  if (mode === 'built') {
    const tsc = createRequire(join(cliRoot, 'package.json')).resolve('typescript/bin/tsc')
    try {
      execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: cliRoot, stdio: 'pipe' })
    } catch (error) {
      const output = (error as { stdout?: Buffer }).stdout?.toString() ?? String(error)
      console.warn(`[logbook tests] building the CLI failed, running it from sources:\n${output}`)
      mode = 'source'
    }
  }
  const argv = mode === 'built' ? [join(cliRoot, 'dist', 'bin.js')] : sourceCommand()
  project.provide('logbookCommand', { argv, mode })
}
