/**
 * `logbook compact <id>` (spec 03 §6.2): resume the session, run a manual compaction, dispose the agent; prints
 * "compacted <k> surface nodes (~<a> → ~<b> tokens)" or "nothing to compact" (`--json`: the result or `null`).
 */

import type { CompactionResult } from '@logbook/compaction'
import { expectPositionals } from '../args.ts'
import { json, sessionIdArg, withApp, type Command } from '../command.ts'

/** The line the demo and `compact` print for a compaction result. */
export function compactedLine(result: CompactionResult | null): string {
  if (result === null) return 'nothing to compact'
  return `compacted ${result.shadowedSeqs.length} surface nodes (~${result.shadowedTokenCount} → ~${result.summaryTokenCount} tokens)`
}

/** `compact`. */
export const compact: Command = async (context) => {
  const { args, output } = context
  const [raw] = expectPositionals(args, ['id'])
  const id = sessionIdArg(raw!)
  return withApp(context, async (app) => {
    const compaction = app.compaction()
    const agent = await app.agents().resume({ resumeSessionId: id, signal: context.signal })
    try {
      const result = await compaction.compactNow(agent, { signal: context.signal })
      output.line(args.global.json ? json(result) : compactedLine(result))
    } finally {
      await agent.dispose()
    }
    return 0
  })
}
