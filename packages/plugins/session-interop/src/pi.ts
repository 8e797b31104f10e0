/**
 * `importPi`: a pi session (`~/.pi/agent/sessions/--<path>--/<time>_<uuid>.jsonl`) as Logbook sessions. The first
 * line is the header `{type: "session", version, id, cwd}`; entries `{type, id, parentId, timestamp}` form a tree
 * (version 1 files are a plain sequence). The newest leaf is the session, every other leaf a fork of it; `message`
 * entries carry user, assistant and tool-result messages, `compaction` keeps the entries from `firstKeptEntryId`,
 * `branch_summary` and `custom_message` are context pi gives the model, `session_info` names the session.
 */

import { CallId, type ImageBlock, type TextBlock, type TokenUsage } from '@logbook/session'
import { assembleSessions, type Conversation } from './assemble.ts'
import { base64Image, text } from './content.ts'
import { InteropError } from './errors.ts'
import { ReportBuilder } from './report.ts'
import { absolutePath, arrayOf, countOf, nonEmpty, objectOf, parseJsonLines, readInput, stringOf, timeOf, type JsonObject } from './source.ts'
import { Forest, newestLeaf, type TreeNode } from './tree.ts'
import type { AssistantItem, ImportInput, ImportItem, ImportOptions, ImportResult, ItemStop } from './types.ts'

/** Entry types pi writes that hold nothing model-visible. */
const KNOWN_OTHER_TYPES: ReadonlySet<string> = new Set(['thinking_level_change', 'label', 'custom', 'model_change'])

interface Entry {
  readonly raw: JsonObject
  readonly type: string
  readonly id: string
  readonly time?: number
}

/** Text and image parts of pi content (a string or `text` / `image {data, mimeType}` blocks). */
function partsOf(content: unknown): (TextBlock | ImageBlock)[] {
  if (typeof content === 'string') return [text(content)]
  return arrayOf(content).flatMap(value => {
    const part = objectOf(value)
    if (part?.type === 'image') return [base64Image(part.mimeType, part.data)]
    const body = stringOf(part?.text)
    return body === undefined ? [] : [text(body)]
  })
}

function usageOf(value: unknown): TokenUsage | undefined {
  const usage = objectOf(value)
  const inputTokens = countOf(usage?.input)
  const outputTokens = countOf(usage?.output)
  if (inputTokens === undefined || outputTokens === undefined) return undefined
  const cacheReadTokens = countOf(usage?.cacheRead)
  const cacheWriteTokens = countOf(usage?.cacheWrite)
  return {
    inputTokens, outputTokens,
    ...(cacheReadTokens === undefined ? {} : { cacheReadTokens }),
    ...(cacheWriteTokens === undefined ? {} : { cacheWriteTokens }),
  }
}

function stopOf(reason: string | undefined): ItemStop | undefined {
  switch (reason) {
    case 'length': return 'max-tokens'
    case 'error': return 'error'
    case 'aborted': return 'aborted'
    case undefined: return undefined
    default: return 'stop'
  }
}

function assistantItem(entry: Entry, message: JsonObject): AssistantItem {
  const blocks: AssistantItem['blocks'] = []
  const signatures: (string | null)[] = []
  for (const value of arrayOf(message.content)) {
    const block = objectOf(value)
    if (block?.type === 'text') blocks.push(text(stringOf(block.text) ?? ''))
    else if (block?.type === 'thinking') {
      blocks.push({ type: 'reasoning', text: stringOf(block.thinking) ?? '' })
      signatures.push(stringOf(block.thinkingSignature) ?? null)
    } else if (block?.type === 'toolCall') {
      blocks.push({ type: 'tool-call', id: CallId(nonEmpty(block.id) ?? `${entry.id}-call-${blocks.length}`), name: nonEmpty(block.name) ?? 'unknown', arguments: JSON.stringify(block.arguments ?? {}) })
    }
  }
  const item: AssistantItem = {
    kind: 'assistant', key: entry.id, ...(entry.time === undefined ? {} : { time: entry.time }),
    provider: nonEmpty(message.provider) ?? 'unknown', model: nonEmpty(message.model) ?? 'unknown', blocks,
  }
  const usage = usageOf(message.usage)
  if (usage !== undefined) item.usage = usage
  const raw = stringOf(message.stopReason)
  const stop = stopOf(raw)
  if (raw !== undefined) item.rawStop = raw
  if (stop !== undefined) item.stop = stop
  const error = nonEmpty(message.errorMessage)
  if (error !== undefined) item.errorMessage = error
  if (signatures.some(signature => signature !== null)) item.replayState = { thinkingSignatures: signatures }
  return item
}

/** The item of one `message` entry, or undefined (counted) for a role that is not model-visible. */
function messageItem(entry: Entry, report: ReportBuilder): ImportItem | undefined {
  const message = objectOf(entry.raw.message) ?? {}
  const time = entry.time === undefined ? {} : { time: entry.time }
  const plugin = { source: { kind: 'plugin' as const, plugin: 'pi' } }
  switch (message.role) {
    case 'user':
      return { kind: 'user', key: entry.id, ...time, content: partsOf(message.content) }
    case 'assistant':
      return assistantItem(entry, message)
    case 'toolResult':
      return { kind: 'tool-result', key: entry.id, ...time, callId: nonEmpty(message.toolCallId) ?? '', content: partsOf(message.content), isError: message.isError === true }
    case 'bashExecution': {
      if (message.excludeFromContext === true) break
      const body = `Ran \`${stringOf(message.command) ?? ''}\`\n${stringOf(message.output) ?? ''}`
      return { kind: 'user', key: entry.id, ...time, content: [text(body)], ...plugin }
    }
    case 'custom':
      return { kind: 'user', key: entry.id, ...time, content: partsOf(message.content), ...plugin }
    case 'branchSummary':
      return { kind: 'user', key: entry.id, ...time, content: [text(stringOf(message.summary) ?? '')], ...plugin }
    default:
      break
  }
  report.skip(`message:${String(message.role ?? '(no role)')}`, entry.id)
  return undefined
}

function entryItem(entry: Entry, report: ReportBuilder): ImportItem | undefined {
  const time = entry.time === undefined ? {} : { time: entry.time }
  const plugin = { source: { kind: 'plugin' as const, plugin: 'pi' } }
  switch (entry.type) {
    case 'message':
      return messageItem(entry, report)
    case 'compaction': {
      const keep = nonEmpty(entry.raw.firstKeptEntryId)
      const summary = stringOf(entry.raw.summary)
      return { kind: 'compaction', key: entry.id, ...time, trigger: 'auto', ...(summary === undefined ? {} : { summary }), ...(keep === undefined ? {} : { keepFromKey: keep }) }
    }
    case 'branch_summary':
      return { kind: 'user', key: entry.id, ...time, content: [text(stringOf(entry.raw.summary) ?? '')], ...plugin }
    case 'custom_message':
      return { kind: 'user', key: entry.id, ...time, content: partsOf(entry.raw.content), ...plugin }
    case 'session_info': {
      const name = nonEmpty(entry.raw.name)
      return name === undefined ? undefined : { kind: 'title', title: name }
    }
    default:
      if (KNOWN_OTHER_TYPES.has(entry.type)) report.skip(entry.type, entry.id)
      else report.unknownType(entry.type, entry.id)
      return undefined
  }
}

function conversation(forest: Forest<Entry>, leaf: TreeNode<Entry>, report: ReportBuilder): Conversation {
  const items = forest.pathTo(leaf.id).flatMap(node => entryItem(node.record, report) ?? [])
  return { items, leaf: leaf.id }
}

/**
 * Import a pi session: the newest branch as the session, the other branches as forks, each checked as
 * `logbook verify` checks it, and a report of what was skipped.
 * @throws InteropError `SOURCE_UNREADABLE`, `SOURCE_EMPTY`, `SOURCE_NOT_JSON`, `SOURCE_MALFORMED` (no session
 * header, a parent that is not in the file, a cycle), `INVALID_SESSION_ID`.
 */
export async function importPi(input: ImportInput, options: ImportOptions = {}): Promise<ImportResult> {
  const { text: body, label, file } = await readInput(input, options)
  const source = parseJsonLines(body, label, file)
  const report = new ReportBuilder()
  if (source.tornTail) report.note('the final line is incomplete (the file was being written) and was skipped')
  const [first, ...rest] = source.lines
  const header = objectOf(first?.value)
  if (header?.type !== 'session') {
    throw new InteropError('SOURCE_MALFORMED', `${label}: line ${first?.line ?? 1} is not a pi session header ({"type":"session",…})`)
  }
  const nodes: TreeNode<Entry>[] = []
  let previous: string | null = null
  for (const { line, value } of rest) {
    const raw = objectOf(value)
    if (raw === undefined) {
      report.skip('not a JSON object', String(line))
      continue
    }
    // Version 1 files have no ids: each entry follows the one before it.
    const id = nonEmpty(raw.id) ?? `line-${line}`
    const parent = 'parentId' in raw ? nonEmpty(raw.parentId) ?? null : previous
    const time = timeOf(raw.timestamp)
    const entry: Entry = { raw, type: stringOf(raw.type) ?? '(no type)', id, ...(time === undefined ? {} : { time }) }
    nodes.push({ id, parent, line, ...(time === undefined ? {} : { time }), record: entry })
    previous = id
  }
  const forest = new Forest(nodes, label, node => report.skip('repeated entry id', `${node.id}:${node.line}`))
  const leaves = forest.leaves()
  const mainLeaf = newestLeaf(leaves)
  const sourceId = nonEmpty(header.id)
  const cwd = absolutePath(header.cwd)
  const createdAt = timeOf(header.timestamp) ?? nodes[0]?.time ?? 0
  if (header.parentSession !== undefined) report.note('the session names a parent session file; the link was not imported')
  const sessions = assembleSessions({
    tool: 'pi', source: report.source('pi', sourceId ?? label, createdAt), label,
    ...(file === undefined ? {} : { file }), ...(sourceId === undefined ? {} : { sourceId }), id: options.id,
    ...(cwd === undefined ? {} : { cwd }), createdAt,
    ...(mainLeaf === undefined ? {} : { main: conversation(forest, mainLeaf, report) }),
    branches: leaves.filter(leaf => leaf !== mainLeaf).map(leaf => conversation(forest, leaf, report)),
  })
  return { sessions, report: report.report('pi', source.lines.length, file, sourceId) }
}
