/**
 * `logbook export <id> --format jsonl|openai-messages [--out <file>]` (spec 03 §6.2), read mode. `jsonl`: the
 * line `{"logbook":"export","formatVersion":1,"header":…}`, then every event unpacked, one per line;
 * `openai-messages`: `{ model, messages, tools? }` from the surface with the chat-completions mapping of §3.4.
 */

import { createWriteStream } from 'node:fs'
import { resolve } from 'node:path'
import { deriveEventMessage, foldSurface, type RequestHeader, type SessionEvent } from '@logbook/session'
import { wireMessage, type WireMessage } from '@logbook/llm-openai'
import { expectPositionals } from '../args.ts'
import { sessionIdArg, withApp, type Command } from '../command.ts'
import { usageError } from '../errors.ts'
import { textOf } from '../render/text.ts'
import { readStored } from './stored.ts'

/** The export file's own format version. */
export const EXPORT_FORMAT_VERSION = 1
/** Progress shows for more than this many events. */
const PROGRESS_THRESHOLD = 10_000

/** The export formats. */
export type ExportFormat = 'jsonl' | 'openai-messages'

/** The newest logged request header, if any. */
export function newestRequestHeader(events: readonly SessionEvent[]): RequestHeader | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!
    if (event.type === 'request/header') return event.data.header
  }
  return undefined
}

/** The chat-completions view of a log: system (surface node 0) first, then the surface messages. */
export function openAiMessages(events: readonly SessionEvent[]): { model: string | null; messages: WireMessage[]; tools?: unknown[] } {
  const messages: WireMessage[] = []
  const { nodes } = foldSurface(events)
  nodes.forEach((seq, position) => {
    const event = events[seq]!
    const message = deriveEventMessage(event)
    if (message === null) return
    if (position === 0 && event.type === 'system/message') messages.push({ role: 'system', content: textOf(event.data.content) })
    else messages.push(wireMessage(message))
  })
  const header = newestRequestHeader(events)
  const tools = header?.tools?.map(tool => ({ type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.parameters } }))
  return { model: header?.config.model ?? null, messages, ...(tools === undefined || tools.length === 0 ? {} : { tools }) }
}

function formatOf(value: string | true | undefined): ExportFormat {
  if (value === 'jsonl' || value === 'openai-messages') return value
  if (value === undefined) throw usageError('export needs --format jsonl|openai-messages')
  throw usageError(`unknown export format "${String(value)}" (expected jsonl or openai-messages)`)
}

/** `export`. */
export const exportSession: Command = async (context) => {
  const { args, output } = context
  const [raw] = expectPositionals(args, ['id'])
  const id = sessionIdArg(raw!)
  const format = formatOf(args.options.format)
  const out = typeof args.options.out === 'string' ? resolve(context.cwd, args.options.out) : undefined
  return withApp(context, async (app) => {
    const { header, events } = await readStored(app.persistence(), id)
    const chunks: string[] = []
    if (format === 'jsonl') {
      chunks.push(`${JSON.stringify({ logbook: 'export', formatVersion: EXPORT_FORMAT_VERSION, header })}\n`)
      const progress = output.progress('export', id, events.length, PROGRESS_THRESHOLD)
      events.forEach((event, index) => {
        chunks.push(`${JSON.stringify(event)}\n`)
        progress.tick(index + 1)
      })
      progress.end()
    } else {
      chunks.push(`${JSON.stringify(openAiMessages(events), null, 2)}\n`)
    }
    if (out === undefined) {
      for (const chunk of chunks) output.write(chunk)
      return 0
    }
    await new Promise<void>((done, fail) => {
      const stream = createWriteStream(out, { flags: 'w' })
      stream.on('error', fail)
      stream.on('finish', done)
      for (const chunk of chunks) stream.write(chunk)
      stream.end()
    })
    return 0
  })
}
