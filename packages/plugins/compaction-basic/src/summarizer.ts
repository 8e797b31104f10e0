/**
 * The summariser (spec 03 §2.9): one `purpose: 'compaction'` request through `ctx.llm.stream` with the span's
 * messages and the fixed instruction, validated into the unframed summary text.
 */

import { CompactionError, cancelledError, type Summarize, type SummarizeOutput } from '@logbook/compaction'
import { assembleMessage, type LlmService } from '@logbook/llm'
import { deepFreeze, MessageId, type StreamChunk, type TokenUsage, type UserMessage } from '@logbook/session'

/** The version of `SUMMARY_INSTRUCTION`, recorded in every `compaction/summary`. */
export const INSTRUCTION_VERSION = 1

/** The instruction appended as the final user message of every summary request (§2.9), four lines. */
export const SUMMARY_INSTRUCTION = [
  'Stop the task and write a checkpoint of the conversation above so another model can continue without it.',
  'Use exactly these sections, in this order: Goal and requests; Decisions and constraints; Files, commands and identifiers; Errors and fixes; Work done; Open items and next step.',
  'Write short bullets; write "(none)" under an empty section. Copy paths, commands, identifiers, numbers and error texts exactly; keep the user\'s corrections and preferences.',
  'Do not call tools. Do not mention that this is a summary. If the conversation opens with an earlier <compacted-summary>, merge it instead of quoting it.',
].join('\n')

/** The final user message of a summary request; it is sent, never logged. */
export const INSTRUCTION_MESSAGE: UserMessage = deepFreeze<UserMessage>({
  id: MessageId('summary-instruction'),
  role: 'user',
  source: { kind: 'plugin', plugin: 'compaction' },
  content: [{ type: 'text', text: SUMMARY_INSTRUCTION }],
})

/** The model that writes summaries; `undefined` members mean "not known". */
export interface SummaryTarget {
  readonly provider: string | undefined
  readonly model: string | undefined
}

/** What a summariser is built from. */
export interface SummarizerOptions {
  readonly llm: LlmService
  readonly target: SummaryTarget
  readonly maxTokens: number
  readonly sessionId: string
}

function summaryText(chunks: readonly StreamChunk[], provider: string, model: string): string {
  const message = assembleMessage(chunks, { kind: 'model', provider, model })
  let text = ''
  for (const block of message.content) if (block.type === 'text') text += block.text
  return text.trim()
}

/**
 * A summariser for one session: it streams the request and returns `{ summary, provider, model, maxTokens,
 * instructionVersion, usage? }`. Text blocks are concatenated and trimmed; reasoning and tool calls are ignored.
 * @throws CompactionError `SUMMARY_FAILED` (no target, `finish error` with the LLM failure as `cause`, cut off at
 * `maxTokens`, blank text) or `CANCELLED` (aborted).
 */
export function createSummarizer(options: SummarizerOptions): Summarize {
  return async (input): Promise<SummarizeOutput> => {
    const { provider, model } = options.target
    if (!provider || !model) throw new CompactionError('SUMMARY_FAILED', 'no provider/model available for summarization')
    const { maxTokens } = options
    const chunks: StreamChunk[] = []
    const stream = options.llm.stream({
      config: { provider, model, maxTokens },
      ...(input.system === undefined ? {} : { system: input.system }),
      ...(input.tools === undefined ? {} : { tools: input.tools }),
      messages: [...input.messages, INSTRUCTION_MESSAGE],
      sessionId: options.sessionId,
      purpose: 'compaction',
      ...(input.signal === undefined ? {} : { signal: input.signal }),
    })
    for await (const chunk of stream) chunks.push(chunk)
    let usage: TokenUsage | undefined
    let finish: Extract<StreamChunk, { type: 'finish' }> | undefined
    for (const chunk of chunks) {
      if (chunk.type === 'usage') usage = chunk.usage
      else if (chunk.type === 'finish') finish = chunk
    }
    switch (finish?.reason) {
      case 'stop':
      case 'tool-calls':
        break
      case 'max-tokens':
        throw new CompactionError('SUMMARY_FAILED', 'summary was cut off at maxTokens')
      case 'aborted':
        throw cancelledError(input.signal)
      case 'error':
      case undefined: {
        const failure = finish?.error
        throw new CompactionError('SUMMARY_FAILED',
          `summary request failed: ${failure?.message ?? 'no finish'} [${failure?.code ?? 'PROTOCOL'}]`, { cause: failure })
      }
    }
    const summary = summaryText(chunks, provider, model)
    if (summary === '') throw new CompactionError('SUMMARY_FAILED', 'model returned no summary text')
    return {
      summary, provider, model, maxTokens, instructionVersion: INSTRUCTION_VERSION,
      ...(usage === undefined ? {} : { usage }),
    }
  }
}
