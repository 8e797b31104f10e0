/**
 * `importCodex`: a Codex rollout (`~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl`) as a Logbook session.
 * Lines are `{timestamp, type, payload}`: `session_meta` names the session (its instructions become the system
 * message), `turn_context` sets the model, `response_item`s carry the conversation (codex-items.ts), `compacted` is a
 * compaction, `event_msg`s mark aborted turns, titles and usage. A rollout is linear: one session, no branches; a
 * subagent rollout links to the thread that spawned it, a forked one to the thread it was forked from.
 */

import { isValidSessionId } from '@logbook/session'
import { assembleSessions, type AssembleInput } from './assemble.ts'
import { CodexItems } from './codex-items.ts'
import { InteropError } from './errors.ts'
import { ReportBuilder } from './report.ts'
import { absolutePath, countOf, nonEmpty, objectOf, parseJsonLines, readInput, stringOf, timeOf, type JsonObject } from './source.ts'
import type { ImportInput, ImportOptions, ImportResult } from './types.ts'

/** `event_msg` types Codex persists that repeat the response items or are telemetry: counted, not imported. */
const KNOWN_EVENTS: ReadonlySet<string> = new Set([
  'user_message', 'agent_message', 'agent_reasoning', 'agent_reasoning_raw_content', 'agent_reasoning_section_break',
  'task_started', 'task_complete', 'turn_started', 'turn_complete', 'context_compacted', 'patch_apply_end',
  'exec_command_end', 'mcp_tool_call_end', 'web_search_end', 'view_image_tool_call', 'image_generation_end',
  'item_completed', 'error', 'stream_error', 'entered_review_mode', 'exited_review_mode', 'plan_update',
])

/** The parent a subagent or forked rollout names, as header fields. */
function linkOf(meta: JsonObject): AssembleInput['link'] {
  const spawn = objectOf(objectOf(objectOf(meta.source)?.subagent)?.thread_spawn)
  const parent = nonEmpty(spawn?.parent_thread_id)
  if (parent !== undefined && isValidSessionId(parent)) {
    const depth = countOf(spawn?.depth)
    return { parentSession: parent, origin: 'subagent', ...(depth === undefined ? {} : { delegationDepth: depth }) }
  }
  const forked = nonEmpty(meta.forked_from_id)
  return forked !== undefined && isValidSessionId(forked) ? { parentSession: forked } : undefined
}

/** The instructions a `session_meta` carries (`instructions`, or `base_instructions.text`). */
function instructionsOf(meta: JsonObject): string | undefined {
  return nonEmpty(meta.instructions) ?? nonEmpty(objectOf(meta.base_instructions)?.text)
}

/**
 * Import a Codex rollout: one session, checked as `logbook verify` checks it, and a report of what was skipped.
 * @throws InteropError `SOURCE_UNREADABLE`, `SOURCE_EMPTY`, `SOURCE_NOT_JSON`, `SOURCE_MALFORMED` (no
 * `session_meta`), `INVALID_SESSION_ID`.
 */
export async function importCodex(input: ImportInput, options: ImportOptions = {}): Promise<ImportResult> {
  const { text, label, file } = await readInput(input, options)
  const source = parseJsonLines(text, label, file)
  const report = new ReportBuilder()
  if (source.tornTail) report.note('the final line is incomplete (the file was being written) and was skipped')
  const conversation = new CodexItems(report)
  let meta: JsonObject | undefined
  let firstTime: number | undefined
  for (const { line, value } of source.lines) {
    const raw = objectOf(value)
    if (raw === undefined) {
      report.skip('not a JSON object', String(line))
      continue
    }
    const type = stringOf(raw.type) ?? '(no type)'
    const payload = objectOf(raw.payload) ?? {}
    const time = timeOf(raw.timestamp)
    firstTime ??= time
    const key = `line-${line}`
    switch (type) {
      case 'session_meta': {
        if (meta !== undefined) {
          report.skip('session_meta')
          break
        }
        meta = payload
        conversation.provider = nonEmpty(payload.model_provider) ?? conversation.provider
        const instructions = instructionsOf(payload)
        if (instructions !== undefined) conversation.items.push({ kind: 'system', key, ...(time === undefined ? {} : { time }), text: instructions })
        break
      }
      case 'turn_context':
        conversation.endResponse()
        conversation.model = nonEmpty(payload.model) ?? conversation.model
        break
      case 'response_item':
        conversation.responseItem(payload, time, key)
        break
      case 'compacted':
        conversation.endResponse()
        if (Array.isArray(payload.replacement_history)) report.note(`the replacement history of the compaction at line ${line} was not imported; its summary was`)
        conversation.items.push({ kind: 'compaction', key, ...(time === undefined ? {} : { time }), trigger: 'auto', ...(stringOf(payload.message) === undefined ? {} : { summary: stringOf(payload.message)! }) })
        break
      case 'event_msg':
        eventMessage(conversation, payload, time, report)
        break
      default:
        report.unknownType(type)
    }
  }
  if (meta === undefined) throw new InteropError('SOURCE_MALFORMED', `${label}: no session_meta record: this is not a Codex rollout`)
  const sourceId = nonEmpty(meta.id)
  const cwd = absolutePath(meta.cwd)
  const createdAt = timeOf(meta.timestamp) ?? firstTime ?? 0
  const link = linkOf(meta)
  const sessions = assembleSessions({
    tool: 'codex', source: report.source('Codex', sourceId ?? label, createdAt), label,
    ...(file === undefined ? {} : { file }), ...(sourceId === undefined ? {} : { sourceId }), id: options.id,
    ...(cwd === undefined ? {} : { cwd }), createdAt, ...(link === undefined ? {} : { link }),
    main: { items: conversation.items },
  })
  return { sessions, report: report.report('codex', source.lines.length, file, sourceId) }
}

function eventMessage(conversation: CodexItems, payload: JsonObject, time: number | undefined, report: ReportBuilder): void {
  const type = stringOf(payload.type) ?? '(no type)'
  switch (type) {
    case 'token_count':
      conversation.tokenCount(payload)
      return
    case 'turn_aborted':
      conversation.endResponse()
      conversation.items.push({ kind: 'turn-end', ...(time === undefined ? {} : { time }), reason: { kind: 'aborted', reason: { kind: 'user' } } })
      return
    case 'thread_name_updated': {
      const title = nonEmpty(payload.thread_name)
      if (title !== undefined) conversation.items.push({ kind: 'title', title })
      return
    }
    case 'thread_rolled_back':
      report.note(`a rollback of ${String(payload.num_turns ?? '?')} turn(s) was not applied; the rolled-back turns are imported`)
      report.skip(`event_msg:${type}`)
      return
    default:
      if (KNOWN_EVENTS.has(type)) report.skip(`event_msg:${type}`)
      else report.unknownType(`event_msg:${type}`)
  }
}
