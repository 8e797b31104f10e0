/**
 * One line per event (`show --log`, spec 03 §6.2): seq, ISO time, type and a short summary of the payload.
 */

import type { SessionEvent } from '@logbook/session'
import { clip, resultText, textOf } from './text.ts'

const SUMMARY_WIDTH = 80

/** A short, one-line description of `event`'s payload. */
export function eventSummary(event: SessionEvent): string {
  switch (event.type) {
    case 'turn/start':
      return `turn ${event.data.turn}`
    case 'turn/end':
      return `turn ${event.data.turn} ${event.data.reason.kind}`
    case 'step/start':
    case 'step/end':
      return `turn ${event.data.turn} step ${event.data.step}`
    case 'system/message':
    case 'user/message':
      return clip(textOf(event.data.content), SUMMARY_WIDTH)
    case 'assistant/chunk': {
      const chunk = event.data.chunk as {
        type: string; text?: string; argumentsDelta?: string; reason?: string; blockType?: string; name?: string
        usage?: { inputTokens: number; outputTokens: number }; error?: { code: string }
      }
      if (chunk.usage !== undefined) return `usage in ${chunk.usage.inputTokens} out ${chunk.usage.outputTokens}`
      if (chunk.reason !== undefined) return `finish ${chunk.reason}${chunk.error === undefined ? '' : ` ${chunk.error.code}`}`
      if (chunk.blockType !== undefined) return `block-start ${chunk.blockType}`
      const detail = chunk.text ?? chunk.argumentsDelta
      return detail === undefined ? chunk.type : `${chunk.type} ${clip(JSON.stringify(detail), SUMMARY_WIDTH)}`
    }
    case 'request/header': {
      const { header, reason } = event.data
      const tools = header.tools?.length ?? 0
      return `${reason} ${header.config.provider}/${header.config.model}${header.config.maxTokens === undefined ? '' : ` maxTokens ${header.config.maxTokens}`}, ${tools} tool${tools === 1 ? '' : 's'}`
    }
    case 'request/context':
      return `${event.data.provider}/${event.data.model}${event.data.contextWindow === undefined ? '' : ` window ${event.data.contextWindow}`}`
    case 'assistant/message': {
      const calls = event.data.message.content.filter(block => block.type === 'tool-call').length
      const text = clip(textOf(event.data.message.content), SUMMARY_WIDTH)
      return `${text}${calls > 0 ? ` (+${calls} tool call${calls === 1 ? '' : 's'})` : ''}${event.data.interrupted === true ? ' (interrupted)' : ''}`
    }
    case 'tool/call':
      return clip(`${event.data.name}(${event.data.arguments})`, SUMMARY_WIDTH)
    case 'tool/result': {
      const code = event.data.error?.code
      return clip(`${code === undefined ? '' : `[${code}] `}${resultText(event.data.message)}`, SUMMARY_WIDTH)
    }
    default:
      return clip(JSON.stringify(event.data), SUMMARY_WIDTH)
  }
}

/** `<seq> <ISO time> <type> <summary>`. */
export function logLine(event: SessionEvent): string {
  const surface = 'surfaceOp' in event && event.surfaceOp !== undefined
    ? (event.surfaceOp === 'append' ? ' +' : ` replace ${event.surfaceOp.start}..${event.surfaceOp.end}`)
    : ''
  return `${event.seq} ${new Date(event.time).toISOString()} ${event.type}${surface} ${eventSummary(event)}`.trimEnd()
}
