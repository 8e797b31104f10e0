/**
 * Search hits for a terminal (`logbook search`, spec 03 §6.2): per hit a heading line — session, seq, turn, event
 * type and field, on surface or log only, title — and the snippet on one line with the matches marked (bold on a
 * colour terminal, «guillemets» otherwise); then how to open the session at the first hit, or fork from it.
 */

import type { SearchHit } from '@logbook/session-search'
import { clip } from './text.ts'

/** How a match is marked. */
export type Mark = (text: string) => string

/** The two lines of one hit. */
export function hitLines(hit: SearchHit, mark: Mark): string[] {
  const where = [`seq ${hit.seq}`, ...(hit.turn === undefined ? [] : [`turn ${hit.turn}`]), `${hit.type} ${hit.field}`,
    hit.onSurface ? 'on surface' : 'log only', ...(hit.inherited ? ['inherited'] : [])]
  const title = hit.title === undefined ? '' : `  ${clip(hit.title, 40)}`
  const snippet = hit.snippet.map(part => {
    const text = part.text.replace(/\s+/g, ' ')
    return part.match ? mark(text) : text
  }).join('').trim()
  return [`${hit.sessionId}  ${where.join(' · ')}${title}`, `    ${snippet}`]
}

/** A shell word: as is when it needs no quoting, else in single quotes. */
export function shellWord(text: string): string {
  return /^[A-Za-z0-9._/=:@%+,-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`
}
