/**
 * `logbook delete <id> [--yes]` (spec 03 §6.2): delete a stored session through the persistence seam (log,
 * projection checkpoint, lock). Without `--yes` it asks on a terminal and refuses elsewhere, before touching the store.
 */

import { createInterface } from 'node:readline/promises'
import { expectPositionals } from '../args.ts'
import { sessionIdArg, withApp, type Command } from '../command.ts'
import { usageError } from '../errors.ts'
import type { TextSource } from '../io.ts'

/** Ask `question` on stderr and read one answer line from `stdin`; true for `y` or `yes`. */
async function confirm(stdin: TextSource, stderr: NodeJS.WritableStream, question: string, signal: AbortSignal): Promise<boolean> {
  const prompt = createInterface({ input: stdin, output: stderr, terminal: false })
  try {
    const answer = await prompt.question(question, { signal })
    return /^(y|yes)$/i.test(answer.trim())
  } finally {
    prompt.close()
  }
}

/** `delete`. */
export const deleteSession: Command = async (context) => {
  const { args, output, stdin } = context
  const [raw] = expectPositionals(args, ['id'])
  const id = sessionIdArg(raw!)
  const ask = args.options.yes !== true
  if (ask && stdin?.isTTY !== true) throw usageError('delete needs --yes when stdin is not a terminal')
  return withApp(context, async (app) => {
    const persistence = app.persistence()
    const stored = await persistence.inspect(id, { signal: context.signal })
    if (ask) {
      const question = `logbook: delete session "${id}" (${stored.events.length} events)? [y/N] `
      if (!(await confirm(stdin!, output.streams.stderr as NodeJS.WritableStream, question, context.signal))) {
        output.diag(`kept ${id}`)
        return 0
      }
    }
    await persistence.delete(id, { confirm: 'delete-session', sessionId: id, revision: stored.revision }, { signal: context.signal })
    output.line(`deleted ${id}`)
    return 0
  })
}
