/**
 * Module resolution for `cordis.yml` entries (spec 03 §7): a package name resolves from the config file's folder
 * first (walking up its `node_modules`, honouring `exports` with the conditions this process runs under), then
 * from the CLI's own installation. Loader 1.0.5 on Node 20 would import bare names from its own folder, so the boot
 * installs `importPlugin` as `ctx.loader.internal`.
 */

import { existsSync, readFileSync, realpathSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

/** The export conditions of this process: `node`, `import`, any `--conditions` / `-C` values, `default`. */
export function activeConditions(execArgv: readonly string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): string[] {
  const args = [...execArgv, ...nodeOptions.split(/\s+/).filter(Boolean)]
  const user: string[] = []
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    const inline = /^(?:--conditions|-C)=(.+)$/.exec(arg)
    if (inline !== null) user.push(inline[1]!)
    else if ((arg === '--conditions' || arg === '-C') && args[i + 1] !== undefined) user.push(args[++i]!)
  }
  return [...user, 'node', 'import', 'default']
}

function splitSpecifier(specifier: string): { pkg: string; subpath: string } {
  const parts = specifier.split('/')
  const size = specifier.startsWith('@') ? 2 : 1
  const pkg = parts.slice(0, size).join('/')
  const rest = parts.slice(size).join('/')
  return { pkg, subpath: rest === '' ? '.' : `./${rest}` }
}

function conditional(target: unknown, conditions: readonly string[]): string | undefined {
  if (typeof target === 'string') return target
  if (Array.isArray(target)) {
    for (const item of target) {
      const found = conditional(item, conditions)
      if (found !== undefined) return found
    }
    return undefined
  }
  if (target === null || typeof target !== 'object') return undefined
  for (const [key, value] of Object.entries(target)) {
    if (!conditions.includes(key)) continue
    const found = conditional(value, conditions)
    if (found !== undefined) return found
  }
  return undefined
}

/** The file `subpath` of a package maps to through its `exports` (or `main`), or undefined when not exported. */
export function exportTarget(manifest: Manifest, subpath: string, conditions: readonly string[]): string | undefined {
  const { exports } = manifest
  if (exports === undefined) {
    if (subpath !== '.') return subpath
    return typeof manifest.main === 'string' ? manifest.main : './index.js'
  }
  const isMap = exports !== null && typeof exports === 'object' && !Array.isArray(exports)
    && Object.keys(exports).some(key => key.startsWith('.'))
  if (!isMap) return subpath === '.' ? conditional(exports, conditions) : undefined
  return conditional((exports as Record<string, unknown>)[subpath], conditions)
}

interface Manifest {
  readonly name?: unknown
  readonly exports?: unknown
  readonly main?: unknown
}

/** The nearest `package.json` at or above `folder` (the package `folder` belongs to), with its folder. */
function enclosingPackage(folder: string): { root: string; manifest: Manifest } | undefined {
  for (let dir = folder; ; dir = dirname(dir)) {
    const path = join(dir, 'package.json')
    if (existsSync(path)) return { root: dir, manifest: JSON.parse(readFileSync(path, 'utf8')) as Manifest }
    if (dirname(dir) === dir) return undefined
  }
}

/**
 * The file URL `specifier` resolves to from `folder`: the package `folder` belongs to when it has that name and
 * `exports` (Node's self-reference, so an app beside a plugin's own package.json can name it), else the first
 * enclosing `node_modules` that holds it; undefined when none does.
 */
export function resolveFrom(specifier: string, folder: string, conditions = activeConditions()): string | undefined {
  const { pkg, subpath } = splitSpecifier(specifier)
  const own = enclosingPackage(folder)
  if (own !== undefined && own.manifest.name === pkg && own.manifest.exports !== undefined) {
    const target = exportTarget(own.manifest, subpath, conditions)
    return target === undefined ? undefined : pathToFileURL(realpathSync(join(own.root, target))).href
  }
  for (let dir = folder; ; dir = dirname(dir)) {
    const root = join(dir, 'node_modules', pkg)
    const manifestPath = join(root, 'package.json')
    if (existsSync(manifestPath)) {
      const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Manifest
      const target = exportTarget(manifest, subpath, conditions)
      if (target === undefined) return undefined
      return pathToFileURL(realpathSync(join(root, target))).href
    }
    if (dirname(dir) === dir) return undefined
  }
}

/**
 * Import a `cordis.yml` entry's module: relative paths and URLs against `baseUrl`, bare names from the config
 * folder, then from the CLI's installation.
 */
export async function importPlugin(name: string, baseUrl: string | undefined): Promise<unknown> {
  if (/^(?:\.{1,2}\/|\/|[a-z][a-z0-9+.-]*:)/i.test(name)) {
    return import(new URL(name, baseUrl ?? pathToFileURL(`${process.cwd()}/`).href).href)
  }
  const folder = baseUrl?.startsWith('file:') ? fileURLToPath(new URL('.', baseUrl)) : process.cwd()
  const local = resolveFrom(name, folder)
  try {
    return await import(local ?? name)
  } catch (error) {
    const { pkg } = splitSpecifier(name)
    const code = (error as { code?: unknown }).code
    if (local === undefined && code === 'ERR_MODULE_NOT_FOUND' && String((error as Error).message).includes(`'${pkg}'`)) {
      throw new Error(`cannot find package "${pkg}" from ${folder} or the logbook installation`, { cause: error })
    }
    throw error
  }
}
