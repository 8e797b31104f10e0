/**
 * Running a query plan against the index (spec 04 §2.3): ranked by bm25, FTS5's `snippet()` cutting the text around
 * the matches; a plan with only short substring terms scans with `LIKE`, orders by recency (newest session, then
 * seq) and cuts its snippet here.
 */
import { invalidQuery, indexUnavailable } from './errors.ts'
import type { QueryPlan } from './plan.ts'
import type { IndexStore } from './store.ts'
import type { SearchField, SnippetPart } from './types.ts'

/** Snippet delimiters: two private-use characters that ordinary text does not contain. */
const OPEN = '\uE000'
const CLOSE = '\uE001'
const ELLIPSIS = '…'

/** What to search. */
export interface SearchRequest {
  /** The text as given, for error messages. */
  readonly text: string
  readonly plan: QueryPlan
  readonly sessionId?: string
  readonly onSurface?: boolean
  readonly limit: number
  readonly snippetTokens: number
}

/** One hit as the index returns it. */
export interface IndexHit {
  readonly sessionId: string
  readonly title: string | null
  readonly turn: number | null
  readonly seq: number
  readonly type: string
  readonly field: SearchField
  readonly onSurface: boolean
  readonly inherited: boolean
  readonly snippet: readonly SnippetPart[]
  readonly score: number
}

interface Row {
  id: string; title: string | null; turn: number | null; seq: number; type: string; field: SearchField
  on_surface: number; inherited: number; text?: string | null
}

/** `snippet()` output split at the delimiters. */
export function snippetParts(marked: string): SnippetPart[] {
  const parts: SnippetPart[] = []
  let match = false
  for (const piece of marked.split(/([\uE000\uE001])/u)) {
    if (piece === OPEN) match = true
    else if (piece === CLOSE) match = false
    else if (piece !== '') {
      const last = parts.at(-1)
      if (last !== undefined && last.match === match) parts[parts.length - 1] = { text: last.text + piece, match }
      else parts.push({ text: piece, match })
    }
  }
  return parts
}

/** A snippet of `text` around the first occurrence of any term, every occurrence in it marked (`LIKE` plans). */
export function substringSnippet(text: string, terms: readonly string[], width: number): SnippetPart[] {
  const lower = text.toLowerCase()
  const haystack = lower.length === text.length ? lower : text
  const needles = terms.map(term => (haystack === lower ? term.toLowerCase() : term)).filter(term => term !== '')
  const first = Math.min(...needles.map(term => haystack.indexOf(term)).filter(index => index !== -1))
  const at = Number.isFinite(first) ? first : 0
  const start = Math.max(0, at - width)
  const end = Math.min(text.length, at + width * 2)
  let marked = ''
  for (let i = start; i < end;) {
    const term = needles.find(needle => haystack.startsWith(needle, i))
    if (term === undefined) {
      marked += text[i]
      i++
    } else {
      marked += `${OPEN}${text.slice(i, i + term.length)}${CLOSE}`
      i += term.length
    }
  }
  return snippetParts(`${start > 0 ? ELLIPSIS : ''}${marked}${end < text.length ? ELLIPSIS : ''}`)
}

type Params = Record<string, unknown>

/** The filters of `request` as conditions on the texts table (alias `t`, joined to sessions as `s`). */
function filtersOf(request: SearchRequest, params: Params): string[] {
  const where: string[] = []
  if (request.sessionId !== undefined) {
    where.push('t.session_key = (SELECT key FROM search_sessions WHERE id = @session)')
    params.session = request.sessionId
  }
  if (request.onSurface !== undefined) {
    where.push('t.on_surface = @surface')
    params.surface = request.onSurface ? 1 : 0
  }
  if (request.plan.index === 'grams') {
    request.plan.likes.forEach((pattern, i) => {
      where.push(`t.text LIKE @like${i} ESCAPE '\\'`)
      params[`like${i}`] = pattern
    })
  }
  return where
}

const DETAILS = 's.id AS id, s.title AS title, t.turn AS turn, t.seq AS seq, t.type AS type, t.field AS field, '
  + 't.on_surface AS on_surface, (t.seq < s.inherited) AS inherited'

function hitOf(row: Row, snippet: SnippetPart[], score: number): IndexHit {
  return {
    sessionId: row.id, title: row.title, turn: row.turn, seq: row.seq, type: row.type, field: row.field,
    onSurface: row.on_surface === 1, inherited: row.inherited === 1, snippet, score,
  }
}

/** Only short substring terms: scan the texts with `LIKE`, newest session first. */
function scanLike(store: IndexStore, request: SearchRequest, terms: readonly string[]): IndexHit[] {
  const params: Params = { limit: request.limit }
  const where = filtersOf(request, params)
  const rows = store.statement(`SELECT ${DETAILS}, t.text AS text FROM search_texts t JOIN search_sessions s ON s.key = t.session_key
    WHERE ${where.join(' AND ')} ORDER BY s.updated_at DESC, t.seq LIMIT @limit`).all(params) as Row[]
  return rows.map(row => hitOf(row, substringSnippet(row.text ?? '', terms, request.snippetTokens * 3), 0))
}

/**
 * Rank on the FTS index alone (joining every match to its session would cost several times as much for a common
 * word), then read the details and cut the snippets of the top hits only. Equal scores keep index order.
 */
function rankMatch(store: IndexStore, request: SearchRequest, table: 'search_words' | 'search_grams', match: string): IndexHit[] {
  const params: Params = { match, limit: request.limit }
  const where = filtersOf(request, params)
  const filter = where.length === 0 ? '' : ` AND rowid IN (SELECT t.id FROM search_texts t WHERE ${where.join(' AND ')})`
  const ranked = store.statement(`SELECT rowid AS id, bm25(${table}) AS rank FROM ${table}
    WHERE ${table} MATCH @match${filter} ORDER BY rank, rowid LIMIT @limit`).all(params) as { id: number; rank: number }[]
  if (ranked.length === 0) return []
  // The ids are integers read from the index: listing them inline lets FTS5 visit only those rows.
  const ids = ranked.map(row => row.id).join(', ')
  const db = store.db()
  const details = new Map((db.prepare(`SELECT t.id AS rowid, ${DETAILS} FROM search_texts t JOIN search_sessions s ON s.key = t.session_key
    WHERE t.id IN (${ids})`).all() as (Row & { rowid: number })[]).map(row => [row.rowid, row]))
  const tokens = table === 'search_words' ? request.snippetTokens : request.snippetTokens * 3
  const snippets = new Map((db.prepare(`SELECT rowid, snippet(${table}, 0, char(57344), char(57345), '${ELLIPSIS}', @tokens) AS snippet
    FROM ${table} WHERE ${table} MATCH @match AND rowid IN (${ids})`).all({ match, tokens }) as { rowid: number; snippet: string }[])
    .map(row => [row.rowid, row.snippet]))
  return ranked.map(({ id, rank }) => hitOf(details.get(id)!, snippetParts(snippets.get(id) ?? ''), -rank))
}

/**
 * The hits of `request`, best first.
 * @throws SessionSearchError `INVALID_QUERY` when FTS5 rejects the expression; `INDEX_UNAVAILABLE` when the index
 * cannot be read.
 */
export function runSearch(store: IndexStore, request: SearchRequest): IndexHit[] {
  const { plan } = request
  try {
    if (plan.index === 'words') return rankMatch(store, request, 'search_words', plan.match)
    if (plan.match !== null) return rankMatch(store, request, 'search_grams', plan.match)
    return scanLike(store, request, plan.terms)
  } catch (error) {
    // FTS5 reports a query it cannot parse (or a column filter it does not know) as a plain SQLITE_ERROR.
    if ((error as { code?: unknown }).code === 'SQLITE_ERROR') throw invalidQuery(request.text, (error as Error).message)
    throw indexUnavailable(store.path, error)
  }
}
