/**
 * Claude Code records along one path of the tree, as conversation items. A user record holds a prompt (a string or
 * text and image blocks) or tool results; one API response is spread over several assistant records with one block
 * each and the same `message.id`, merged here into one response whose usage is counted once (the last record's);
 * a `system` record with subtype `compact_boundary` is a compaction whose summary is the `isCompactSummary` user
 * record after it. Everything else becomes no item and is counted in the report.
 */

import type { AssistantItem, CompactionItem, ImportItem, ToolResultItem, UserItem } from './types.ts'
import { base64Image, text, urlImage } from './content.ts'
import type { ReportBuilder } from './report.ts'
import { arrayOf, countOf, nonEmpty, objectOf, stringOf, type JsonObject } from './source.ts'
import { CallId, type ImageBlock, type TextBlock, type TokenUsage } from '@logbook/session'

/** A Claude Code tree record. */
export interface ClaudeRecord {
  readonly raw: JsonObject
  readonly type: string
  readonly uuid: string
  readonly time?: number
}

const PROVIDER = 'anthropic'

/** Text and image blocks of a message or tool-result `content` (a string or blocks). */
function partsOf(content: unknown, report: ReportBuilder, key: string): (TextBlock | ImageBlock)[] {
  if (typeof content === 'string') return [text(content)]
  const parts: (TextBlock | ImageBlock)[] = []
  for (const value of arrayOf(content)) {
    const block = objectOf(value)
    switch (block?.type) {
      case 'text':
        parts.push(text(stringOf(block.text) ?? ''))
        break
      case 'image': {
        const source = objectOf(block.source)
        parts.push(source?.type === 'base64' ? base64Image(source.media_type, source.data) : urlImage(source?.url, source?.media_type))
        break
      }
      default:
        report.skip(`content block ${String(block?.type ?? typeof value)}`, `${key}:${parts.length}`)
    }
  }
  return parts
}

/** Anthropic usage as Logbook's `TokenUsage`, or undefined when the counts are missing. */
export function usageOf(value: unknown): TokenUsage | undefined {
  const usage = objectOf(value)
  const inputTokens = countOf(usage?.input_tokens)
  const outputTokens = countOf(usage?.output_tokens)
  if (inputTokens === undefined || outputTokens === undefined) return undefined
  const cacheReadTokens = countOf(usage?.cache_read_input_tokens)
  const cacheWriteTokens = countOf(usage?.cache_creation_input_tokens)
  return {
    inputTokens, outputTokens,
    ...(cacheReadTokens === undefined ? {} : { cacheReadTokens }),
    ...(cacheWriteTokens === undefined ? {} : { cacheWriteTokens }),
  }
}

function userItems(record: ClaudeRecord, items: ImportItem[], report: ReportBuilder): void {
  const message = objectOf(record.raw.message)
  const time = record.time
  const results: ToolResultItem[] = []
  const parts: unknown[] = []
  for (const value of typeof message?.content === 'string' ? [{ type: 'text', text: message.content }] : arrayOf(message?.content)) {
    const block = objectOf(value)
    if (block?.type !== 'tool_result') {
      parts.push(value)
      continue
    }
    const callId = nonEmpty(block.tool_use_id) ?? ''
    const key = `${record.uuid}:${callId}`
    results.push({ kind: 'tool-result', key, ...(time === undefined ? {} : { time }), callId, content: partsOf(block.content ?? '', report, key), isError: block.is_error === true })
  }
  items.push(...results)
  if (parts.length === 0) return
  const content = partsOf(parts, report, record.uuid)
  const last = items.at(-1)
  if (record.raw.isCompactSummary === true && last?.kind === 'compaction' && last.summary === undefined) {
    last.summary = content.flatMap(part => (part.type === 'text' ? [part.text] : [])).join('\n')
    return
  }
  const meta = record.raw.isMeta === true || record.raw.isCompactSummary === true
  const item: UserItem = {
    kind: 'user', key: record.uuid, ...(time === undefined ? {} : { time }), content,
    ...(meta ? { source: { kind: 'plugin', plugin: 'claude-code' } } : {}),
  }
  items.push(item)
}

/** Add the response of `record` to `items`, merged into `last` when it continues that API response; returns it. */
function assistantItems(record: ClaudeRecord, items: ImportItem[], report: ReportBuilder, last: AssistantItem | undefined): AssistantItem {
  const message = objectOf(record.raw.message)
  const id = nonEmpty(message?.id)
  const merging = id !== undefined && last?.id === id
  const item: AssistantItem = merging ? last : {
    kind: 'assistant', key: record.uuid, ...(record.time === undefined ? {} : { time: record.time }), ...(id === undefined ? {} : { id }),
    provider: PROVIDER, model: nonEmpty(message?.model) ?? 'unknown', blocks: [],
  }
  const signatures = arrayOf(objectOf(item.replayState)?.thinkingSignatures).map(value => stringOf(value) ?? null)
  const content = typeof message?.content === 'string' ? [{ type: 'text', text: message.content }] : arrayOf(message?.content)
  content.forEach((value, index) => {
    const block = objectOf(value)
    switch (block?.type) {
      case 'text':
        item.blocks.push(text(stringOf(block.text) ?? ''))
        break
      case 'thinking':
        item.blocks.push({ type: 'reasoning', text: stringOf(block.thinking) ?? '' })
        signatures.push(stringOf(block.signature) ?? null)
        break
      case 'tool_use':
        item.blocks.push({ type: 'tool-call', id: CallId(nonEmpty(block.id) ?? `${record.uuid}-call-${index}`), name: nonEmpty(block.name) ?? 'unknown', arguments: JSON.stringify(block.input ?? {}) })
        break
      default:
        report.skip(`content block ${String(block?.type ?? typeof value)}`, `${record.uuid}:${index}`)
    }
  })
  if (signatures.some(signature => signature !== null)) item.replayState = { thinkingSignatures: signatures }
  const usage = usageOf(message?.usage)
  if (usage !== undefined) item.usage = usage
  const stop = stringOf(message?.stop_reason)
  if (stop !== undefined) {
    item.rawStop = stop
    item.stop = stop === 'max_tokens' ? 'max-tokens' : 'stop'
  }
  if (record.raw.isApiErrorMessage === true) {
    item.stop = 'error'
    item.errorMessage = item.blocks.flatMap(block => (block.type === 'text' ? [block.text] : [])).join('\n') || 'API error'
  }
  if (!merging) items.push(item)
  return item
}

function systemItems(record: ClaudeRecord, items: ImportItem[], report: ReportBuilder): void {
  const subtype = stringOf(record.raw.subtype)
  if (subtype !== 'compact_boundary') {
    report.skip(`system:${subtype ?? '(no subtype)'}`, record.uuid)
    return
  }
  const trigger = stringOf(objectOf(record.raw.compactMetadata)?.trigger)
  const item: CompactionItem = {
    kind: 'compaction', key: record.uuid, ...(record.time === undefined ? {} : { time: record.time }),
    trigger: trigger === 'manual' ? 'manual' : 'auto',
  }
  items.push(item)
}

/** The items of the records of one path, root first. */
export function claudeItems(path: readonly ClaudeRecord[], report: ReportBuilder): ImportItem[] {
  const items: ImportItem[] = []
  let last: AssistantItem | undefined
  for (const record of path) {
    switch (record.type) {
      case 'user':
        userItems(record, items, report)
        break
      case 'assistant':
        last = assistantItems(record, items, report, last)
        break
      default:
        systemItems(record, items, report)
    }
  }
  return items
}
