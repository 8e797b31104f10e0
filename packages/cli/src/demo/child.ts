/**
 * The demo's hidden child process (`logbook __demo-child <id> --dir <dir>`, spec 03 §6.2 section 2): resume the
 * session and send the deploy prompt; the scripted model calls `deploy`, which runs until the parent kills this
 * process with SIGKILL.
 */

import { expectPositionals } from '../args.ts'
import { sessionIdArg, withApp, type Command } from '../command.ts'
import { DEMO_PROMPTS } from './script.ts'

/** `__demo-child`: never returns normally while `deploy` runs. */
export const demoChild: Command = async (context) => {
  const [raw] = expectPositionals(context.args, ['id'])
  const id = sessionIdArg(raw!)
  return withApp(context, async (app) => {
    const agent = await app.agents().resume({ resumeSessionId: id })
    const result = await agent.send(DEMO_PROMPTS.deploy)
    return result.reason.kind === 'completed' ? 0 : 1
  }, { kind: 'jsonl', root: context.storeRoot })
}
