/**
 * `logbook search <query> [--session <id>] [--limit <n>] [--fts] [--reindex] [--json]` (spec 03 §6.2): bring the
 * index up to date with the store (progress on stderr for more than 20 sessions), or rebuild it with `--reindex`,
 * then print the ranked hits and how to open or fork the session at the first one.
 */

import type { IndexProgress, SessionSearch } from '@logbook/session-search'
import type { Output, Progress } from '../io.ts'
import { integerOption } from '../args.ts'
import { json, sessionIdArg, withApp, type Command, type CommandContext } from '../command.ts'
import { usageError } from '../errors.ts'
import { hitLines, shellWord } from '../render/hits.ts'

/** Progress shows for more than this many sessions (03 §6.1). */
const PROGRESS_THRESHOLD = 20

/** An `onProgress` callback printing `logbook: <op> sessions: <done>/<total>`, started at the first report. */
function progressOf(output: Output, op: string): { onProgress: (p: IndexProgress) => void; end: () => void } {
  let progress: Progress | undefined
  return {
    onProgress: (p) => {
      progress ??= output.progress(op, 'sessions', p.total, PROGRESS_THRESHOLD)
      progress.tick(p.done)
    },
    end: () => progress?.end(),
  }
}

/** `logbook [--dir <d> | --config <f>] <rest>`: a command that reaches the same store. */
function commandLine(context: CommandContext, rest: readonly string[]): string {
  const { dir, config } = context.args.global
  const store = config !== undefined ? ['--config', config] : dir !== undefined ? ['--dir', dir] : []
  return ['logbook', ...store, ...rest].map(shellWord).join(' ')
}

async function refresh(service: SessionSearch, output: Output, reindex: boolean, signal: AbortSignal): Promise<void> {
  const progress = progressOf(output, reindex ? 'reindex' : 'index')
  const report = reindex
    ? await service.reindex({ onProgress: progress.onProgress, signal })
    : await service.catchUp({ onProgress: progress.onProgress, signal })
  progress.end()
  if (reindex) {
    const { texts } = service.counts()
    output.diag(`indexed ${report.indexed} of ${report.sessions} sessions (${texts} texts)${report.failed > 0 ? `; ${report.failed} could not be read` : ''}`)
  }
}

/** `search`. */
export const search: Command = async (context) => {
  const { args, output } = context
  const text = args.positionals.join(' ')
  const reindex = args.options.reindex === true
  if (text.trim() === '' && !reindex) throw usageError('search needs <query>')
  const limit = typeof args.options.limit === 'string' ? integerOption(args.options.limit, 'limit', 1, 500) : undefined
  const sessionId = typeof args.options.session === 'string' ? sessionIdArg(args.options.session) : undefined
  return withApp(context, async (app) => {
    const service = await app.search()
    await refresh(service, output, reindex, context.signal)
    if (text.trim() === '') return 0
    const hits = await service.query(text, {
      syntax: args.options.fts === true ? 'fts' : 'plain', signal: context.signal,
      ...(limit === undefined ? {} : { limit }), ...(sessionId === undefined ? {} : { sessionId }),
    })
    if (args.global.json) {
      output.line(json({ hits }))
      return 0
    }
    if (hits.length === 0) {
      output.note(`no matches for ${JSON.stringify(text)}`)
      return 0
    }
    const mark = output.color ? (match: string) => output.bold(match) : (match: string) => `«${match}»`
    for (const hit of hits) for (const line of hitLines(hit, mark)) output.line(line)
    const first = hits[0]!
    output.note(`open: ${commandLine(context, ['show', first.sessionId, '--at', String(first.seq)])}`)
    output.note(`fork: ${commandLine(context, ['fork', first.sessionId, '--at', String(first.seq)])}`)
    return 0
  })
}
