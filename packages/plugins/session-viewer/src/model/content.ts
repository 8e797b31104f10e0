/**
 * Message content as the viewer shows it: text blocks joined, reasoning and refusal blocks kept apart (a refusal is
 * the model declining in its own words, never mixed into its text), tool-result parts as text or image references.
 */

import type { ContentBlock, ImageRef } from '@logbook/session'

/** The text, reasoning and refusals of a message's content. */
export interface TextParts {
  readonly text: string
  readonly reasoning: readonly string[]
  readonly refusals: readonly string[]
}

/** One part of a tool result. */
export type ResultPart = { readonly kind: 'text'; readonly text: string } | { readonly kind: 'image'; readonly image: ImageRef }

/** Text blocks joined by a newline; reasoning and refusal blocks (session format 2) listed on their own. */
export function textParts(content: readonly ContentBlock[]): TextParts {
  const text: string[] = []
  const reasoning: string[] = []
  const refusals: string[] = []
  for (const block of content) {
    if (block.type === 'text') text.push(block.text)
    else if (block.type === 'reasoning') reasoning.push(block.text)
    else if (block.type === 'refusal') refusals.push(block.text)
  }
  return { text: text.join('\n'), reasoning, refusals }
}

/** The parts of a tool-result block's content, in order. */
export function resultParts(content: readonly ContentBlock[]): ResultPart[] {
  const parts: ResultPart[] = []
  for (const block of content) {
    if (block.type === 'text') parts.push({ kind: 'text', text: block.text })
    else if (block.type === 'image') parts.push({ kind: 'image', image: block.image })
  }
  return parts
}

/** A result's parts as one text (images as `[image <name or uri>]`). */
export function resultText(parts: readonly ResultPart[]): string {
  return parts.map(part => (part.kind === 'text' ? part.text : `[image ${part.image.name ?? part.image.uri}]`)).join('\n')
}
