/**
 * Booting a `cordis.yml` app (spec 03 §7): a root context based at the config file's folder, the stderr log
 * exporter, the loader (importing names from the config folder first), an include entry for the file; then every
 * entry is inspected and each failed or waiting one is reported on one line, failing the boot with exit 1.
 */

import { existsSync, statSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { Context, type Fiber } from '@deepseek-ai/cordis'
import Loader, { type Entry } from '@deepseek-ai/cordis-plugin-loader'
import Include from '@deepseek-ai/cordis-plugin-include'
import { CliError, oneLine } from '../errors.ts'
import type { Output } from '../io.ts'
import { installLogExporter } from '../log-exporter.ts'
import { createApp, type App } from './app.ts'
import { importPlugin } from './resolve.ts'

/** Fiber states (`FiberState` is a const enum in Cordis). */
const FAILED = 3
const PENDING = 0
const ACTIVE = 2

/** The loader id of the include entry that carries the file's entries. */
const INCLUDE_ID = 'config'

/** The first line of an error's message (YAML errors append a code frame). */
function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error)
  return text.split(/\r?\n/).find(line => line.trim() !== '')?.trim() ?? text
}

/** What is wrong with one entry, as the one line §7 prints. */
async function entryProblem(entry: Entry, importErrors: ReadonlyMap<string, unknown>): Promise<string | undefined> {
  if (entry.disabled) return undefined
  const label = `entry ${entry.options.id} (${entry.options.name})`
  const fiber: Fiber | undefined = entry.fiber
  if (fiber === undefined) {
    const error = importErrors.get(entry.options.name)
    return `${label} failed: ${error === undefined ? 'the module could not be loaded' : oneLine(error)}`
  }
  if (fiber.state === ACTIVE) return undefined
  if (fiber.state === FAILED) {
    try {
      await fiber.await()
      return `${label} failed`
    } catch (error) {
      return `${label} failed: ${oneLine(error)}`
    }
  }
  if (fiber.state === PENDING) {
    const missing = Object.keys(fiber.inject).find(key => fiber.ctx.get(key) === undefined)
    return missing === undefined ? `${label} is not active` : `${label} is waiting for service ${missing}`
  }
  return `${label} is not active`
}

/**
 * Boot `file` and check every entry.
 * @throws CliError `BOOT_FAILED` (lines already printed) when an entry failed or waits for a service, or when the
 * file cannot be read.
 */
export async function bootConfigApp(file: string, output: Output): Promise<App> {
  const path = resolve(file)
  if (!existsSync(path) || !statSync(path).isFile()) throw new CliError('BOOT_FAILED', `config file not found: ${path}`)
  const baseUrl = pathToFileURL(`${dirname(path)}/`).href
  const ctx = new Context()
  ctx.baseUrl = baseUrl
  const exporter = installLogExporter(ctx, output)
  exporter.hold()
  const loaderFiber = ctx.plugin(Loader, { baseUrl })
  const app = createApp(ctx, [{ dispose: () => loaderFiber.dispose() }], exporter)
  const fail = async (lines: readonly string[], message: string): Promise<never> => {
    exporter.discard()
    for (const line of lines) output.error(line)
    await app.dispose()
    throw new CliError('BOOT_FAILED', message, { alreadyReported: lines.length > 0 })
  }
  try {
    await loaderFiber
  } catch (error) {
    return fail([], `the loader failed to start: ${oneLine(error)}`)
  }
  const importErrors = new Map<string, unknown>()
  ctx.loader.builtins.include = Include
  ;(ctx.loader as { internal: unknown }).internal = {
    import: async (name: string, parentUrl: string | undefined): Promise<unknown> => {
      try {
        return await importPlugin(name, parentUrl)
      } catch (error) {
        importErrors.set(name, error)
        throw error
      }
    },
  }
  await ctx.loader.create({ id: INCLUDE_ID, name: 'cordis:include', config: { path: pathToFileURL(path).href } } as never)
  await ctx.loader.await()
  const include = ctx.loader.resolve(INCLUDE_ID)
  if (include.fiber === undefined || include.fiber.state !== ACTIVE) {
    // The file itself is unusable (unreadable, not YAML, not a list of entries): one ordinary error line.
    let reason = 'the include plugin could not be loaded'
    if (include.fiber !== undefined) {
      reason = await include.fiber.await().then(() => 'it did not load', (error: unknown) => firstLine(error))
    }
    return fail([], `cannot load ${path}: ${reason}`)
  }
  const lines: string[] = []
  for (const entry of include.subtree?.entries() ?? []) {
    if (entry.options.group) continue
    const problem = await entryProblem(entry, importErrors)
    if (problem !== undefined) lines.push(problem)
  }
  if (lines.length > 0) return fail(lines, `${lines.length} entr${lines.length === 1 ? 'y' : 'ies'} of ${path} did not start`)
  exporter.release()
  return app
}
