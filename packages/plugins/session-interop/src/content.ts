/**
 * Content blocks shared by the importers: text, and images. Logbook's image block is a reference whose `uri` may be
 * a `data:` URI, so an image the source holds inline keeps its bytes there — the import stays lossless and the
 * message can be sent to a model again — pinned by its decoded size and SHA-256. An image Logbook cannot hold (a
 * media type outside png, jpeg, gif and webp, bytes that are not base64, a URL of unknown type) becomes a text
 * placeholder naming what it was.
 */

import { createHash } from 'node:crypto'
import type { ImageBlock, ImageMediaType, TextBlock } from '@logbook/session'

const MEDIA_TYPES: ReadonlySet<string> = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp'])
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/
const EXTENSIONS: Readonly<Record<string, ImageMediaType>> = {
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp',
}

/** A text block. */
export function text(value: string): TextBlock {
  return { type: 'text', text: value }
}

/** True iff `value` is one of the image media types Logbook's image block accepts. */
export function isImageMediaType(value: unknown): value is ImageMediaType {
  return typeof value === 'string' && MEDIA_TYPES.has(value)
}

/** Hex SHA-256 of `parts` joined by NUL: the seed of every id this package derives. */
export function digest(...parts: readonly string[]): string {
  return createHash('sha256').update(parts.join('\u0000')).digest('hex')
}

/** A UUID v4-shaped id derived from `parts` (the same parts give the same id). */
export function stableUuid(...parts: readonly string[]): string {
  const h = digest(...parts)
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16)
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`
}

/** The image block of inline base64 `data`, or a placeholder when Logbook cannot hold it. */
export function base64Image(mediaType: unknown, data: unknown): ImageBlock | TextBlock {
  const clean = typeof data === 'string' ? data.replace(/\s+/g, '') : undefined
  if (clean === undefined || !BASE64.test(clean) || clean.length % 4 === 1) {
    return text(`[image omitted: ${String(mediaType ?? 'unknown type')}, its data is not base64]`)
  }
  const bytes = Buffer.from(clean, 'base64')
  if (!isImageMediaType(mediaType)) return text(`[image omitted: ${String(mediaType ?? 'unknown type')}, ${bytes.length} bytes]`)
  const sha256 = createHash('sha256').update(bytes).digest('hex')
  return { type: 'image', image: { uri: `data:${mediaType};base64,${clean}`, mediaType, bytes: bytes.length, sha256 } }
}

/** The image block of a URL: a `data:` URL is decoded as inline bytes; `https:` and `file:` URLs stay references. */
export function urlImage(url: unknown, mediaType?: unknown): ImageBlock | TextBlock {
  if (typeof url !== 'string' || url === '') return text('[image omitted: no URL]')
  const inline = /^data:([^;,]+)(;base64)?,(.*)$/s.exec(url)
  if (inline !== null) {
    if (inline[2] === undefined) return text(`[image omitted: ${inline[1]}, not base64-encoded]`)
    return base64Image(inline[1], inline[3])
  }
  const type = isImageMediaType(mediaType) ? mediaType : EXTENSIONS[/\.([a-z0-9]+)(?:[?#].*)?$/i.exec(url)?.[1]?.toLowerCase() ?? '']
  if (!/^(https?|file):/i.test(url) || type === undefined) return text(`[image omitted: ${url}]`)
  return { type: 'image', image: { uri: url, mediaType: type } }
}
