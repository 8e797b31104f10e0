/**
 * `logbook import [--from logbook|claude-code|codex|pi] <file|folder> [--as <id>] [--dry-run] [--force]` (spec 03
 * §6.2): `--from logbook`, the default, reads Logbook's own export (`import.ts`, unchanged); the other sources are
 * another tool's transcripts (`import-transcripts.ts`).
 */

import type { ImportTool } from '@logbook/session-interop'
import type { Command } from '../command.ts'
import { usageError } from '../errors.ts'

/** The import sources, the default first. */
export const IMPORT_SOURCES = ['logbook', 'claude-code', 'codex', 'pi'] as const

/** Options only the transcript importers take. */
const TRANSCRIPT_OPTIONS = ['dry-run', 'force', 'json'] as const

function isTool(value: string): value is ImportTool {
  return value === 'claude-code' || value === 'codex' || value === 'pi'
}

/** `import`. */
export const importFrom: Command = async (context) => {
  const from = context.args.options.from ?? 'logbook'
  if (from === 'logbook') {
    for (const option of TRANSCRIPT_OPTIONS) {
      if (context.args.options[option] !== undefined) {
        throw usageError(`option --${option} applies to --from claude-code|codex|pi`)
      }
    }
    return (await import('./import.ts')).importSession(context)
  }
  if (typeof from !== 'string' || !isTool(from)) {
    throw usageError(`unknown import source "${String(from)}" (expected ${IMPORT_SOURCES.slice(0, -1).join(', ')} or pi)`)
  }
  return (await import('./import-transcripts.ts')).importTranscripts(context, from)
}
