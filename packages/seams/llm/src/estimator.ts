/**
 * Token estimation (spec 03 §3.1): the default byte-based estimator and the lookup of the optional
 * `tokenEstimator` service that replaces it.
 */

import type { Context } from '@deepseek-ai/cordis'
import type { ContentBlock, Message, ToolSchema } from '@logbook/session'
import type { TokenEstimator } from './types.ts'

/** Tokens of an image block, whatever its size. */
const IMAGE_TOKENS = 512
/** Fixed overhead of a message and of a tool-call or tool-result block. */
const FRAME_TOKENS = 4

function text(value: string): number {
  return Math.ceil(Buffer.byteLength(value, 'utf8') / 4)
}

function block(value: ContentBlock): number {
  switch (value.type) {
    case 'text':
    case 'reasoning':
    case 'refusal':
      return text(value.text)
    case 'tool-call':
      return FRAME_TOKENS + text(value.name) + text(value.arguments)
    case 'tool-result': {
      let sum = FRAME_TOKENS + text(value.toolCallId)
      for (const inner of value.content) sum += block(inner)
      return sum
    }
    case 'image':
      return IMAGE_TOKENS
    default:
      // Blocks added after this estimator was written are priced by their JSON text.
      return text(JSON.stringify(value))
  }
}

function message(value: Message): number {
  let sum = FRAME_TOKENS
  for (const part of value.content as readonly ContentBlock[]) sum += block(part)
  return sum
}

function tools(schemas: readonly ToolSchema[]): number {
  return text(JSON.stringify(schemas))
}

/**
 * The default estimator: `text` is `ceil(utf8Bytes / 4)`; a message is 4 plus its blocks (text and reasoning by
 * their text, a tool call 4 + name + arguments, a tool result 4 + call id + inner blocks, an image 512, any other
 * block by its JSON); tools are priced by their JSON.
 */
export const defaultTokenEstimator: TokenEstimator = Object.freeze({ text, message, tools })

/**
 * The estimator in force for `ctx`: the `tokenEstimator` service when one is provided and active, else
 * `defaultTokenEstimator`. Read it at each measurement: the service may come and go.
 */
export function tokenEstimatorOf(ctx: Context): TokenEstimator {
  const provided = ctx.get('tokenEstimator') as TokenEstimator | undefined
  return provided ?? defaultTokenEstimator
}
