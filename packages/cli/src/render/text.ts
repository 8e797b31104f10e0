/**
 * Small text helpers shared by the renderers: labelled lines with indented continuation lines, block text and
 * one-line summaries.
 */

import type { ContentBlock, Message } from '@logbook/session'

/** `label` then `text`; every further line of `text` is indented under the first. */
export function labelled(label: string, text: string): string[] {
  const lines = text.split('\n')
  const pad = ' '.repeat(label.length + 1)
  return lines.map((line, index) => (index === 0 ? `${label} ${line}` : `${pad}${line}`).trimEnd())
}

/** The text blocks of `content` joined by a newline. */
export function textOf(content: readonly ContentBlock[]): string {
  return content.flatMap(block => (block.type === 'text' ? [block.text] : [])).join('\n')
}

/** Text of a tool-result block's parts; images as `[image <uri>]`. */
export function resultText(message: Message): string {
  const block = message.content[0]
  if (block?.type !== 'tool-result') return textOf(message.content)
  return block.content.map(part => (part.type === 'text' ? part.text : `[image ${part.image.uri}]`)).join('\n')
}

/** `text` on one line, cut to `max` code points with `…`. */
export function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  const points = [...flat]
  return points.length <= max ? flat : `${points.slice(0, max - 1).join('')}…`
}
