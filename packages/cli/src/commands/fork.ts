/**
 * `logbook fork <id> [--at <seq>] [--as <child>]` (spec 03 §6.2): the stored-source fork of §5.1 — the parent is
 * read in read mode and its bytes stay untouched; the child is seeded with `forkSeed` and stored. Inputs are checked
 * in 01 §7's order (an invalid child id, an existing child, a missing source, then the boundary), where "exists" and
 * "found" also count stored logs.
 */

import { forkSeed, SessionForkError, type SessionId } from '@logbook/session'
import { expectPositionals } from '../args.ts'
import { json, sessionIdArg, withApp, type Command } from '../command.ts'
import { sessionExists } from './exists.ts'
import { storeNewSession } from './persist.ts'
import { readStored } from './stored.ts'

/**
 * The `--at` text as a boundary for `forkSeed`, which words every numeric refusal itself.
 * @throws SessionForkError `INVALID_BOUNDARY` for text that is not a number at all (01 §7's message).
 */
function boundaryOf(text: string | undefined): number | undefined {
  if (text === undefined) return undefined
  if (/^-?\d+(?:\.\d+)?$/.test(text)) return Number(text)
  throw new SessionForkError('INVALID_BOUNDARY', `fork boundary must be a non-negative safe integer, got ${text}`)
}

/** `fork`. */
export const fork: Command = async (context) => {
  const { args, output } = context
  const [raw] = expectPositionals(args, ['id'])
  const sourceId = sessionIdArg(raw!)
  const childArg = typeof args.options.as === 'string' ? sessionIdArg(args.options.as) : undefined
  const atText = typeof args.options.at === 'string' ? args.options.at : undefined
  return withApp(context, async (app) => {
    if (childArg !== undefined && (await sessionExists(app, childArg))) {
      throw new SessionForkError('SESSION_ALREADY_EXISTS', `session "${childArg}" already exists`)
    }
    const source = await readStored(app.persistence(), sourceId)
    const seed = forkSeed(source.header, source.events, boundaryOf(atText))
    let childId = childArg
    for (let n = 1; childId === undefined; n++) {
      const candidate = `${sourceId}-fork-${n}`
      if (!(await sessionExists(app, candidate))) childId = candidate
    }
    await storeNewSession(app, childId as SessionId, { seed: seed.seed, meta: seed.meta, inheritedEventCount: seed.inheritedEventCount })
    output.line(args.global.json ? json({ childId }) : childId)
    return 0
  })
}
