/**
 * `pnpm build` of `@logbook/cli`: compiles `src/` with `tsconfig.build.json` and publishes the result into `dist/`
 * so that no process ever starts from a half-written file. `tsc` rewrites every output in place (open with
 * O_TRUNC, then write), so a `logbook` started while another build runs could import an empty module; here `tsc`
 * writes into a staging folder beside `dist/` (same depth, so source-map paths stay valid) and each file is then
 * renamed over its old copy, which replaces it atomically. `dist/bin.js` is made executable (the package `bin`),
 * and files a previous build left behind are removed.
 *
 * Run as a script (`node scripts/build.mjs`) or call `build()`; both throw with tsc's output when it fails.
 */

import { execFileSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, readdirSync, realpathSync, renameSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The package folder. */
export const packageRoot = join(dirname(fileURLToPath(import.meta.url)), '..')

/** Every file below `dir`, as paths relative to it. */
function filesBelow(dir, base = dir) {
  const found = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) found.push(...filesBelow(path, base))
    else found.push(relative(base, path))
  }
  return found
}

/**
 * Build `dist/` atomically file by file.
 * @param {{ quiet?: boolean }} options `quiet` captures tsc's output into the thrown error instead of printing it.
 */
export function build(options = {}) {
  const dist = join(packageRoot, 'dist')
  const staging = join(packageRoot, `.dist-staging-${process.pid}-${Date.now().toString(36)}`)
  const tsc = createRequire(join(packageRoot, 'package.json')).resolve('typescript/bin/tsc')
  try {
    try {
      execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--outDir', staging], {
        cwd: packageRoot,
        stdio: options.quiet === true ? 'pipe' : 'inherit',
      })
    } catch (error) {
      const output = `${error.stdout?.toString() ?? ''}${error.stderr?.toString() ?? ''}`.trim()
      throw new Error(`tsc -p tsconfig.build.json failed${output === '' ? '' : `:\n${output}`}`, { cause: error })
    }
    chmodSync(join(staging, 'bin.js'), 0o755)
    const built = filesBelow(staging)
    for (const file of built) {
      mkdirSync(dirname(join(dist, file)), { recursive: true })
      renameSync(join(staging, file), join(dist, file))
    }
    const current = new Set(built)
    for (const file of existsSync(dist) ? filesBelow(dist) : []) {
      if (!current.has(file)) rmSync(join(dist, file), { force: true })
    }
  } finally {
    rmSync(staging, { recursive: true, force: true })
  }
}

if (process.argv[1] !== undefined && realpathSync(fileURLToPath(import.meta.url)) === realpathSync(process.argv[1])) build()
