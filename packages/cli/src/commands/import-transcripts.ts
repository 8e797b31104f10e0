/**
 * `logbook import --from claude-code|codex|pi <file|folder> [--as <id>] [--dry-run] [--force]` (spec 03 §6.2): the
 * importers of `@logbook/session-interop` read each file, `planStore` decides — before anything is written — what
 * happens to each session (a conflict refuses the file), and `storePlan` writes. A folder imports every `*.jsonl`
 * below it, with progress; a file it refuses is reported and the others go on. `--dry-run` prints the same summary
 * and writes nothing.
 */

import { readdir, stat } from 'node:fs/promises'
import { join, relative, resolve } from 'node:path'
import { codeOf } from '@logbook/session'
import {
  importClaudeCode, importCodex, importPi, InteropError, planStore, storedImports, storePlan,
  type ImportInput, type ImportOptions, type ImportResult, type ImportTool, type StoredImports,
} from '@logbook/session-interop'
import type { App } from '../app/app.ts'
import { expectPositionals } from '../args.ts'
import { json, sessionIdArg, withApp, type CommandContext } from '../command.ts'
import { oneLine, usageError } from '../errors.ts'
import { importJson, importLines } from '../render/import.ts'

/** The importer of each tool. */
const IMPORTERS: Readonly<Record<ImportTool, (input: ImportInput, options: ImportOptions) => Promise<ImportResult>>> = {
  'claude-code': importClaudeCode,
  'codex': importCodex,
  'pi': importPi,
}

/** Progress shows for a folder of more than this many files (03 §6.1: 20 sessions). */
const PROGRESS_THRESHOLD = 20

/** One source file: its absolute path and the path as the user gave it. */
interface SourceFile {
  readonly path: string
  readonly given: string
}

async function jsonlBelow(dir: string): Promise<string[]> {
  const found: string[] = []
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) found.push(...await jsonlBelow(path))
    else if (entry.isFile() && entry.name.endsWith('.jsonl')) found.push(path)
  }
  return found
}

/**
 * The files `argument` names: itself, or every `*.jsonl` below a folder, sorted.
 * @throws InteropError `SOURCE_EMPTY` for a folder without one.
 */
async function sourcesOf(path: string, given: string): Promise<{ folder: boolean; files: SourceFile[] }> {
  const info = await stat(path).catch(() => undefined)
  if (info === undefined || !info.isDirectory()) return { folder: false, files: [{ path, given }] }
  const files = (await jsonlBelow(path)).sort().map(file => ({ path: file, given: join(given, relative(path, file)) }))
  if (files.length === 0) throw new InteropError('SOURCE_EMPTY', `${path}: no .jsonl file in this folder`)
  return { folder: true, files }
}

interface Outcome {
  readonly written: number
  readonly skipped: number
  readonly json: Record<string, unknown>
}

async function importFile(context: CommandContext, app: App, tool: ImportTool, file: SourceFile, stored: StoredImports): Promise<Outcome> {
  const { args, output } = context
  const dryRun = args.options['dry-run'] === true
  const id = typeof args.options.as === 'string' ? sessionIdArg(args.options.as) : undefined
  const result = await IMPORTERS[tool]({ path: file.path }, { file: file.given, ...(id === undefined ? {} : { id }) })
  const plan = planStore(result.sessions, stored, { force: args.options.force === true })
  if (!dryRun) await storePlan(app.persistence(), plan, stored)
  if (!args.global.json) for (const line of importLines(file.given, result, plan, dryRun)) output.line(line)
  const skipped = plan.filter(entry => entry.action === 'skip').length
  return { written: plan.length - skipped, skipped, json: importJson(file.given, result, plan, dryRun) }
}

/** `import --from <tool>`. */
export async function importTranscripts(context: CommandContext, tool: ImportTool): Promise<number> {
  const { args, output } = context
  const [given] = expectPositionals(args, ['file|folder'])
  const { folder, files } = await sourcesOf(resolve(context.cwd, given!), given!)
  if (folder && args.options.as !== undefined) throw usageError('option --as names one session; it cannot be used with a folder')
  return withApp(context, async (app) => {
    const stored = await storedImports(app.persistence())
    if (!folder) {
      const outcome = await importFile(context, app, tool, files[0]!, stored)
      if (args.global.json) output.line(json(outcome.json))
      return 0
    }
    const progress = output.progress('import', given!, files.length, PROGRESS_THRESHOLD)
    const results: Record<string, unknown>[] = []
    let written = 0
    let skipped = 0
    let refused = 0
    for (const [index, file] of files.entries()) {
      try {
        const outcome = await importFile(context, app, tool, file, stored)
        written += outcome.written
        skipped += outcome.skipped
        results.push(outcome.json)
      } catch (error) {
        refused++
        const code = codeOf(error) ?? 'UNEXPECTED'
        output.error(`${oneLine(error)} [${code}]`)
        results.push({ file: file.given, error: { code, message: oneLine(error) } })
      }
      progress.tick(index + 1)
    }
    progress.end()
    const verb = args.options['dry-run'] === true ? 'would be imported' : 'imported'
    if (args.global.json) output.line(json(results))
    else output.line(`${given}: ${files.length} files, ${written} sessions ${verb}, ${skipped} already imported, ${refused} files refused`)
    return refused === 0 ? 0 : 1
  })
}
