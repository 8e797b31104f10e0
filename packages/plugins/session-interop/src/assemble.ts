/**
 * From conversations to stored-ready sessions: the main conversation is built on its own; each other branch is a
 * fork of it (01 §7: the main log's own prefix up to the branch point, `session/end-seed {inherited: true}`, forked
 * closers for a turn open at the cut) continued with the branch's own items; a subagent conversation is a session of
 * its own linked to its parent (`parentSession`, `origin: 'subagent'`). Every session is checked before it is
 * returned (`validate.ts`), so a caller never stores a log that Logbook would refuse.
 */

import { forkSeed, isValidSessionId, SESSION_FORMAT_VERSION, type SessionEvent, type SessionHeader, type SessionId } from '@logbook/session'
import { EventBuilder, type BuilderSource } from './builder.ts'
import { InteropError } from './errors.ts'
import type { ImportedRole, ImportedSession, ImportItem, ImportTool } from './types.ts'
import { countEvents, validateImported } from './validate.ts'

/** One conversation to build: a path of the source, or the whole of a linear source. */
export interface Conversation {
  readonly items: readonly ImportItem[]
  /** The id of the source record it ends at (tree sources). */
  readonly leaf?: string
}

/** A subagent conversation and how it links to its parent. */
export interface SubagentConversation extends Conversation {
  /** The suffix of its id: `<main id>-agent-<suffix>`. */
  readonly suffix: string
}

/** Everything an importer found, ready to assemble. */
export interface AssembleInput {
  readonly tool: ImportTool
  readonly source: BuilderSource
  readonly label: string
  readonly file?: string
  readonly sourceId?: string
  /** The Logbook id of the main session (the caller's choice, else the source id). */
  readonly id: string | undefined
  readonly cwd?: string
  readonly createdAt: number
  /** Header fields that link the main session to a parent (a Codex fork or subagent rollout). */
  readonly link?: { readonly parentSession: string; readonly origin?: 'subagent'; readonly delegationDepth?: number }
  readonly main?: Conversation
  readonly branches?: readonly Conversation[]
  readonly subagents?: readonly SubagentConversation[]
}

/** A built log and the event count after each of its items. */
interface Built {
  readonly events: SessionEvent[]
  readonly after: number[]
  readonly keySeqs: ReadonlyMap<string, number>
}

function build(source: BuilderSource, items: readonly ImportItem[], seed?: readonly SessionEvent[], keySeqs?: ReadonlyMap<string, number>): Built {
  const builder = new EventBuilder(source, seed, keySeqs)
  const after: number[] = []
  for (const item of items) {
    builder.add(item)
    after.push(builder.events.length)
  }
  return { events: builder.finish(), after, keySeqs: builder.keySeqs }
}

/**
 * The session id `id`, checked.
 * @throws InteropError `INVALID_SESSION_ID`.
 */
function checkedId(label: string, id: string, what: string): SessionId {
  if (!isValidSessionId(id)) {
    throw new InteropError('INVALID_SESSION_ID', `${label}: ${what} "${id}" is not a valid Logbook session id (import it under another id)`)
  }
  return id
}

/** The header fields beside id, version, creation time and origin that an imported session may carry. */
interface HeaderFields {
  readonly cwd?: string
  readonly parentSession?: string
  readonly isSeeded?: boolean
  readonly seedLength?: number
  readonly origin?: 'subagent'
  readonly delegationDepth?: number
}

function headerOf(input: AssembleInput, id: string, fields: HeaderFields, createdAt: number, leaf: string | undefined): SessionHeader {
  const importedFrom = {
    tool: input.tool,
    ...(input.file === undefined ? {} : { file: input.file }),
    ...(input.sourceId === undefined ? {} : { sourceId: input.sourceId }),
    ...(leaf === undefined ? {} : { leaf }),
  }
  const { cwd, parentSession, isSeeded, seedLength, origin, delegationDepth } = { cwd: input.cwd, ...fields }
  return {
    version: SESSION_FORMAT_VERSION, id: id as SessionId, createdAt,
    ...(cwd === undefined ? {} : { cwd }),
    ...(parentSession === undefined ? {} : { parentSession }),
    ...(isSeeded === undefined ? {} : { isSeeded }),
    ...(seedLength === undefined ? {} : { seedLength }),
    ...(origin === undefined ? {} : { origin }),
    ...(delegationDepth === undefined ? {} : { delegationDepth }),
    importedFrom,
  } as SessionHeader
}

function finished(input: AssembleInput, role: ImportedRole, header: SessionHeader, events: SessionEvent[], inherited: number): ImportedSession {
  validateImported(input.label, header, events, inherited)
  return { role, header, events, inheritedEventCount: inherited, counts: countEvents(events) }
}

/** The items of `items` equal, in order, to those of `main`. */
function sharedItems(main: readonly ImportItem[], items: readonly ImportItem[]): number {
  let n = 0
  while (n < main.length && n < items.length && JSON.stringify(main[n]) === JSON.stringify(items[n])) n++
  return n
}

function branchSession(input: AssembleInput, main: Built, mainItems: readonly ImportItem[], mainHeader: SessionHeader,
  branch: Conversation, id: string): ImportedSession | undefined {
  const shared = sharedItems(mainItems, branch.items)
  const boundary = shared === 0 ? -1 : main.after[shared - 1]! - 1
  if (boundary < 0) {
    input.source.note(`the branch ending at ${branch.leaf ?? '?'} shares no history with the session and was skipped`)
    input.source.skip('branch without shared history', branch.leaf)
    return undefined
  }
  if (shared === branch.items.length) {
    input.source.note(`the branch ending at ${branch.leaf ?? '?'} holds nothing beyond its branch point and was skipped`)
    input.source.skip('branch without own records', branch.leaf)
    return undefined
  }
  const { seed, inheritedEventCount, meta } = forkSeed(mainHeader, main.events, boundary)
  const keySeqs = new Map([...main.keySeqs].filter(([, seq]) => seq <= boundary))
  const built = build(input.source, branch.items.slice(shared), seed, keySeqs)
  const header = headerOf(input, id, meta, seed[boundary]!.time, branch.leaf)
  return finished(input, 'branch', header, built.events, inheritedEventCount)
}

/**
 * Build, fork and check every session of `input`: the main session first, then its branches (`<id>-branch-<n>`),
 * then the subagents (`<id>-agent-<suffix>`).
 * @throws InteropError `SOURCE_MALFORMED` when the source names no session id and none was given, `SOURCE_EMPTY`
 * when no conversation became a session,
 * `INVALID_SESSION_ID` for an id Logbook cannot use, `IMPORT_INVALID` if a converted log breaks a Logbook rule.
 */
export function assembleSessions(input: AssembleInput): ImportedSession[] {
  const empty = (): InteropError => new InteropError('SOURCE_EMPTY', `${input.label}: the file holds no conversation to import`)
  if ((input.main?.items.length ?? 0) === 0 && (input.subagents ?? []).every(agent => agent.items.length === 0)) throw empty()
  const baseId = input.id ?? input.sourceId
  if (baseId === undefined) throw new InteropError('SOURCE_MALFORMED', `${input.label}: the source names no session id (give one)`)
  const mainId = checkedId(input.label, baseId, input.id === undefined ? 'the source session id' : 'the session id')
  const sessions: ImportedSession[] = []
  const main = input.main === undefined ? undefined : build(input.source, input.main.items)
  if (input.main !== undefined && main !== undefined && main.events.length > 0) {
    const header = headerOf(input, mainId, input.link ?? {}, input.createdAt, input.main.leaf)
    sessions.push(finished(input, 'main', header, main.events, 0))
    let n = 0
    for (const branch of input.branches ?? []) {
      const id = checkedId(input.label, `${mainId}-branch-${n + 1}`, 'the branch id')
      const session = branchSession(input, main, input.main.items, header, branch, id)
      if (session === undefined) continue
      sessions.push(session)
      n++
    }
  }
  for (const agent of input.subagents ?? []) {
    const id = checkedId(input.label, `${mainId}-agent-${agent.suffix}`, 'the subagent id')
    const built = build(input.source, agent.items)
    if (built.events.length === 0) continue
    const createdAt = built.events[0]?.time ?? input.createdAt
    const header = headerOf(input, id, { parentSession: mainId, origin: 'subagent', delegationDepth: 1 }, createdAt, agent.leaf)
    sessions.push(finished(input, 'subagent', header, built.events, 0))
  }
  if (sessions.length === 0) throw empty()
  return sessions
}
