/**
 * `logbook export <id> --format <format> [--out <file>] [--redact <regex>]… [--no-redact]` (spec 03 §6.2), read
 * mode. `jsonl`: the line `{"logbook":"export","formatVersion":1,"header":…}`, then every event unpacked, one per
 * line; `openai-messages`: `{ model, messages, tools? }` from the surface with the chat-completions mapping of §3.4;
 * `anthropic-messages`: the surface as an Anthropic Messages request body; `otel-genai`: the log as OpenTelemetry
 * GenAI spans in OTLP/JSON; `markdown`: the transcript as the viewer's log view shows it; `html`: the viewer's
 * session page as one self-contained file. Each format is one row of `EXPORT_FORMATS`; redaction runs once, before
 * any row.
 */

import { createWriteStream } from 'node:fs'
import { resolve } from 'node:path'
import { deriveEventMessage, foldSurface, type RequestHeader, type SessionEvent } from '@logbook/session'
import { wireMessage, type WireMessage } from '@logbook/llm-openai'
import { exportAnthropicMessages, exportOtelGenAi } from '@logbook/session-interop'
import { readForkRelatives, renderSessionHtml, renderSessionMarkdown, type ForkRelatives } from '@logbook/session-viewer'
import { expectPositionals } from '../args.ts'
import { sessionIdArg, withApp, type Command, type CommandContext } from '../command.ts'
import { usageError } from '../errors.ts'
import { redactionPatterns, redactStored } from '../redact.ts'
import { textOf } from '../render/text.ts'
import { readStored, type StoredSession } from './stored.ts'

/** The export file's own format version. */
export const EXPORT_FORMAT_VERSION = 1
/** Progress shows for more than this many events. */
const PROGRESS_THRESHOLD = 10_000

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

/** What every format row receives: the (redacted) session and what redaction did. */
export interface ExportInput {
  readonly stored: StoredSession
  /** Set when redaction replaced anything: the export says so. */
  readonly redacted?: { readonly patterns: number; readonly replacements: number }
  /** The session's parent and children (read from the store on first use). */
  relatives(): Promise<ForkRelatives>
}

/** The text chunks of one export. */
type ExportWriter = (input: ExportInput, context: CommandContext) => Promise<string[]>

/** One line per event after the export header line (what `import` reads back). */
async function jsonlChunks({ stored, redacted }: ExportInput, context: CommandContext): Promise<string[]> {
  const { header, events } = stored
  const chunks = [`${JSON.stringify({ logbook: 'export', formatVersion: EXPORT_FORMAT_VERSION, header, ...(redacted === undefined ? {} : { redacted }) })}\n`]
  const progress = context.output.progress('export', header.id, events.length, PROGRESS_THRESHOLD)
  events.forEach((event, index) => {
    chunks.push(`${JSON.stringify(event)}\n`)
    progress.tick(index + 1)
  })
  progress.end()
  return chunks
}

/** A JSON document, indented. */
const document = (value: unknown): string[] => [`${JSON.stringify(value, null, 2)}\n`]

/** The export formats, in help order: each row turns a stored session into the export's text. */
export const EXPORT_FORMATS = {
  'jsonl': jsonlChunks,
  'openai-messages': async ({ stored }) => document(openAiMessages(stored.events)),
  'anthropic-messages': async ({ stored }) => document(exportAnthropicMessages(stored.events)),
  'otel-genai': async ({ stored }) => document(exportOtelGenAi(stored.events, stored.header)),
  'markdown': async input => [renderSessionMarkdown(input.stored, { relatives: await input.relatives() })],
  'html': async input => [renderSessionHtml(input.stored, { relatives: await input.relatives() })],
} satisfies Readonly<Record<string, ExportWriter>>

/** The export formats. */
export type ExportFormat = keyof typeof EXPORT_FORMATS

const FORMAT_NAMES = Object.keys(EXPORT_FORMATS) as ExportFormat[]

function formatOf(value: string | true | undefined): ExportFormat {
  if (typeof value === 'string' && (FORMAT_NAMES as string[]).includes(value)) return value as ExportFormat
  if (value === undefined) throw usageError(`export needs --format ${FORMAT_NAMES.join('|')}`)
  throw usageError(`unknown export format "${String(value)}" (expected ${FORMAT_NAMES.slice(0, -1).join(', ')} or ${FORMAT_NAMES.at(-1)})`)
}

/** `export`. */
export const exportSession: Command = async (context) => {
  const { args, output } = context
  const [raw] = expectPositionals(args, ['id'])
  const id = sessionIdArg(raw!)
  const format = formatOf(args.options.format)
  const out = typeof args.options.out === 'string' ? resolve(context.cwd, args.options.out) : undefined
  const sources = args.lists.redact ?? []
  if (args.options['no-redact'] === true && sources.length > 0) throw usageError('--redact and --no-redact cannot be combined')
  const patterns = redactionPatterns(sources, args.options['no-redact'] !== true)
  return withApp(context, async (app) => {
    const { stored, replacements } = redactStored(await readStored(app.persistence(), id), patterns)
    let relatives: Promise<ForkRelatives> | undefined
    const input: ExportInput = {
      stored,
      ...(replacements === 0 ? {} : { redacted: { patterns: patterns.length, replacements } }),
      relatives: () => (relatives ??= readForkRelatives(app.persistence(), stored.header)),
    }
    const chunks = await EXPORT_FORMATS[format](input, context)
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
