/**
 * From what a user typed to an FTS5 query (spec 04 §2.2). Plain text is read as terms — words, or phrases in double
 * quotes — that must all occur, each quoted so that FTS5 syntax in it is taken literally. Terms of ordinary words
 * search the `unicode61` index (whole words, bm25 ranking). A term in a script written without spaces (Chinese,
 * Japanese, Thai, …) or without any letter or digit cannot be found as a word, so then every term is matched as a
 * substring: through the `trigram` index when it has at least 3 characters, else by a `LIKE` scan. The `fts` syntax
 * passes the text to the word index as an FTS5 expression.
 */
import { invalidQuery } from './errors.ts'
import type { QuerySyntax } from './types.ts'

/** How a query runs. */
export type QueryPlan =
  /** FTS5 `MATCH` on the word index. */
  | { readonly index: 'words'; readonly match: string }
  /** Substrings: `MATCH` on the trigram index for terms of ≥ 3 characters (`null`: none), `LIKE` for the others. */
  | { readonly index: 'grams'; readonly match: string | null; readonly likes: readonly string[]; readonly terms: readonly string[] }

/** Characters of scripts that do not separate words by spaces: `unicode61` would keep a whole run as one token. */
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u
const WORDLIKE = /[\p{L}\p{N}]/u
/** The shortest term the trigram index can match. */
const TRIGRAM = 3

/** The terms of plain text: quoted phrases and runs of non-space characters (stray quotes dropped). */
export function termsOf(text: string): string[] {
  const terms: string[] = []
  for (const match of text.matchAll(/"([^"]*)"|(\S+)/gu)) {
    const term = (match[1] ?? match[2]!.replaceAll('"', '')).replace(/\s+/gu, ' ').trim()
    if (term !== '') terms.push(term)
  }
  return terms
}

/** An FTS5 string literal: the text in double quotes, inner quotes doubled. */
function quoted(term: string): string {
  return `"${term.replaceAll('"', '""')}"`
}

/** A `LIKE` pattern matching `term` anywhere (`\` escapes the wildcards). */
function likePattern(term: string): string {
  return `%${term.replace(/[\\%_]/gu, char => `\\${char}`)}%`
}

/**
 * The plan for `text`.
 * @throws SessionSearchError `INVALID_QUERY` when the text holds no term.
 */
export function planQuery(text: string, syntax: QuerySyntax): QueryPlan {
  if (syntax === 'fts') {
    const match = text.trim()
    if (match === '') throw invalidQuery(text, 'the query is empty')
    return { index: 'words', match }
  }
  const terms = termsOf(text)
  if (terms.length === 0) throw invalidQuery(text, 'the query is empty')
  if (terms.every(term => WORDLIKE.test(term) && !UNSPACED.test(term))) return { index: 'words', match: terms.map(quoted).join(' ') }
  const long = terms.filter(term => [...term].length >= TRIGRAM)
  const likes = terms.filter(term => [...term].length < TRIGRAM).map(likePattern)
  return { index: 'grams', match: long.length === 0 ? null : long.map(quoted).join(' '), likes, terms }
}
