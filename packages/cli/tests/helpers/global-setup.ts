/**
 * Decides how the tests spawn `logbook`. Preferred: the built binary (`node dist/bin.js`), possible when every
 * workspace package the CLI imports has a `dist/` — as after `pnpm build`, and always under `pnpm test`, where turbo
 * builds dependencies first (`^build`). Under turbo (`TURBO_HASH` set) or with `LOGBOOK_TEST_BIN=built` the built
 * binary is required: a missing dependency build or a failing CLI build fails the run instead of silently testing
 * the sources. Otherwise, or with `LOGBOOK_TEST_BIN=source`, the CLI runs from sources through tsx, exactly as
 * `pnpm logbook` runs it.
 *
 * The CLI's `dist/` is rebuilt only when it is older than its inputs, and then through the package's own build
 * script, which publishes every file atomically: a test run never rewrites files that another run (a second
 * `vitest`, a concurrent `pnpm test`) is executing. Rewriting them in place was what made spawned commands fail
 * now and then with "does not provide an export named …" on stderr.
 */

import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type { TestProject } from 'vitest/node'

const cliRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')

declare module 'vitest' {
  export interface ProvidedContext {
    logbookCommand: { readonly argv: readonly string[]; readonly mode: 'built' | 'source' }
  }
}

/** Every file below `dir`. */
function filesBelow(dir: string): string[] {
  if (!existsSync(dir)) return []
  return readdirSync(dir, { withFileTypes: true }).flatMap(entry => {
    const path = join(dir, entry.name)
    return entry.isDirectory() ? filesBelow(path) : [path]
  })
}

function newestMtime(paths: readonly string[]): number {
  return Math.max(0, ...paths.map(path => statSync(path).mtimeMs))
}

/** Workspace packages the CLI imports (directly or through each other) without a `dist/`, or with a stale one. */
function unbuiltDependencies(checkFreshness: boolean): string[] {
  const seen = new Set<string>()
  const stale: string[] = []
  const visit = (root: string): void => {
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> }
    for (const name of Object.keys(manifest.dependencies ?? {})) {
      if (!name.startsWith('@logbook/') || seen.has(name)) continue
      seen.add(name)
      const dir = realpathSync(join(root, 'node_modules', name))
      const built = join(dir, 'dist', 'index.js')
      if (!existsSync(built) || (checkFreshness && statSync(built).mtimeMs < newestMtime(filesBelow(join(dir, 'src'))))) stale.push(name)
      visit(dir)
    }
  }
  visit(cliRoot)
  return stale
}

/** The CLI's `dist/` holds an output for every source and is newer than every build input. */
function cliBuildIsFresh(): boolean {
  const dist = join(cliRoot, 'dist')
  const sources = filesBelow(join(cliRoot, 'src')).filter(file => file.endsWith('.ts'))
  const outputs = sources.map(file => join(dist, relative(join(cliRoot, 'src'), file)).replace(/\.ts$/, '.js'))
  if (!outputs.every(file => existsSync(file))) return false
  const inputs = [
    ...sources, join(cliRoot, 'package.json'), join(cliRoot, 'tsconfig.build.json'), join(cliRoot, 'scripts', 'build.mjs'),
    join(cliRoot, '..', '..', 'tsconfig.base.json'),
  ]
  const oldestOutput = Math.min(...filesBelow(dist).map(file => statSync(file).mtimeMs))
  return oldestOutput >= newestMtime(inputs)
}

function sourceCommand(): readonly string[] {
  const tsx = pathToFileURL(createRequire(join(cliRoot, 'package.json')).resolve('tsx')).href
  return ['--conditions=source', '--import', tsx, join(cliRoot, 'src', 'bin.ts')]
}

/** Build the CLI when needed and provide the command line the tests spawn. */
export default function setup(project: TestProject): void {
  const forced = process.env.LOGBOOK_TEST_BIN
  const required = forced === 'built' || (forced !== 'source' && process.env.TURBO_HASH !== undefined)
  let mode: 'built' | 'source' = forced === 'source' ? 'source' : 'built'
  const fallBack = (reason: string): void => {
    if (required) throw new Error(`[logbook tests] the built CLI is required here (turbo or LOGBOOK_TEST_BIN=built), but ${reason}`)
    console.warn(`[logbook tests] running the CLI from sources: ${reason} (run pnpm build to test the built binary)`)
    mode = 'source'
  }
  if (mode === 'built') {
    // Under turbo, `^build` has just built every dependency: trust it even if a source was touched since.
    const unbuilt = unbuiltDependencies(process.env.TURBO_HASH === undefined)
    if (unbuilt.length > 0) fallBack(`no up-to-date dist/ for ${unbuilt.join(', ')}`)
  }
  if (mode === 'built' && !cliBuildIsFresh()) {
    try {
      execFileSync(process.execPath, [join(cliRoot, 'scripts', 'build.mjs')], { cwd: cliRoot, stdio: 'pipe' })
    } catch (error) {
      const output = `${(error as { stdout?: Buffer }).stdout?.toString() ?? ''}${(error as { stderr?: Buffer }).stderr?.toString() ?? ''}`
      fallBack(`building the CLI failed:\n${output || String(error)}`)
    }
  }
  const argv = mode === 'built' ? [join(cliRoot, 'dist', 'bin.js')] : sourceCommand()
  project.provide('logbookCommand', { argv, mode })
}
