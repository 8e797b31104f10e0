/**
 * What text one event contributes to the index (spec 04 §2), as `{ field, text }` pieces. Text that another event
 * already carries is left out: chunks repeat their assistant message (chunk.ts indexes only the chunks no message
 * cites), `tool/call` repeats the message's tool-call block, `compaction/summary` repeats its checkpoint message, and a
 * pruned `tool/result` replacement is a cut copy of the original it shadows.
 */
import type { ContentBlock, SessionEvent } from '@logbook/session'
import type { SearchField } from './types.ts'

/** One indexable text of an event. */
export interface Piece {
  readonly field: SearchField
  readonly text: string
}

/** The compaction checkpoint's framing (03 §2.9): the summary is between these lines. */
const SUMMARY_OPEN = '<compacted-summary>\n'
const SUMMARY_CLOSE = '\n</compacted-summary>'

type Loose = Record<string, unknown>

const isRecord = (value: unknown): value is Loose => typeof value === 'object' && value !== null && !Array.isArray(value)

/** The text blocks of `content` joined by a newline (non-text blocks skipped). */
function textBlocks(content: unknown): string {
  if (!Array.isArray(content)) return ''
  const parts: string[] = []
  for (const block of content as readonly ContentBlock[]) if (block?.type === 'text' && typeof block.text === 'string') parts.push(block.text)
  return parts.join('\n')
}

/** The summary inside a checkpoint's framing, or the whole text when it is not framed. */
function summaryOf(text: string): string {
  const open = text.indexOf(SUMMARY_OPEN)
  const close = text.lastIndexOf(SUMMARY_CLOSE)
  return open !== -1 && close > open ? text.slice(open + SUMMARY_OPEN.length, close) : text
}

/** `<code> <message>` of an error object, or '' when it has neither. */
function errorText(error: unknown): string {
  if (!isRecord(error)) return ''
  return [error.code, error.message].filter((part): part is string => typeof part === 'string' && part !== '').join(' ')
}

function push(out: Piece[], field: SearchField, text: string): void {
  if (text.trim() !== '') out.push({ field, text })
}

function userPieces(data: Loose, out: Piece[]): void {
  const source = isRecord(data.source) ? data.source : {}
  const text = textBlocks(data.content)
  if (source.kind === 'user') push(out, 'user', text)
  else if (source.kind === 'plugin' && source.plugin === 'compaction') push(out, 'summary', summaryOf(text))
  else push(out, 'plugin', text)
}

function assistantPieces(data: Loose, out: Piece[]): void {
  const message = isRecord(data.message) ? data.message : {}
  const content = Array.isArray(message.content) ? (message.content as readonly ContentBlock[]) : []
  push(out, 'assistant', textBlocks(content))
  for (const kind of ['reasoning', 'refusal'] as const) {
    const parts: string[] = []
    for (const block of content) if (block?.type === kind && typeof block.text === 'string') parts.push(block.text)
    push(out, kind, parts.join('\n'))
  }
  for (const block of content) {
    if (block?.type !== 'tool-call') continue
    push(out, 'tool-name', block.name)
    push(out, 'tool-arguments', block.arguments)
  }
}

function toolResultPieces(event: SessionEvent, data: Loose, out: Piece[]): void {
  // A replacing result is the pruner's cut copy of the original, which stays indexed (04 §2).
  if ('surfaceOp' in event && isRecord(event.surfaceOp)) return
  const message = isRecord(data.message) ? data.message : {}
  const block = Array.isArray(message.content) ? (message.content[0] as Loose | undefined) : undefined
  const text = isRecord(block) ? textBlocks(block.content) : ''
  const code = isRecord(data.error) && typeof data.error.code === 'string' ? data.error.code : undefined
  if (code !== undefined) push(out, 'tool-error', `${code} ${text}`)
  else push(out, isRecord(block) && block.isError === true ? 'tool-error' : 'tool-result', text)
}

/** The pieces of `event`; empty for events without indexable text of their own. */
export function piecesOf(event: SessionEvent): Piece[] {
  const out: Piece[] = []
  const data: Loose = isRecord(event.data) ? (event.data as Loose) : {}
  switch (event.type as string) {
    case 'system/message':
      push(out, 'system', textBlocks(data.content))
      break
    case 'user/message':
      userPieces(data, out)
      break
    case 'assistant/message':
      assistantPieces(data, out)
      break
    case 'tool/result':
      toolResultPieces(event, data, out)
      break
    case 'turn/end': {
      const reason = isRecord(data.reason) ? data.reason : {}
      if (reason.kind === 'error') push(out, 'error', errorText(reason.error))
      break
    }
    case 'compaction/end':
      push(out, 'error', errorText(data.error))
      break
    case 'todo/write':
      if (Array.isArray(data.todos)) push(out, 'todo', data.todos.map(todo => (isRecord(todo) && typeof todo.content === 'string' ? todo.content : '')).join('\n'))
      break
    case 'session/title':
      if (typeof data.title === 'string') push(out, 'title', data.title)
      break
    default:
      break
  }
  return out
}
