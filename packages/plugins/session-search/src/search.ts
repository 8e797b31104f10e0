/**
 * Running a query plan against the index (spec 04 §2.3): ranked by bm25 (then the newest session, then seq), with
 * FTS5's `snippet()` cutting the text around the matches; a plan with only short substring terms scans with `LIKE`,
 * orders by recency and cuts its snippet here.
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
  on_surface: number; inherited: number; score: number; snippet: string | null; text: string | null
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

function sqlOf(plan: QueryPlan, request: SearchRequest): { sql: string; params: Record<string, unknown> } {
  const params: Record<string, unknown> = { limit: request.limit }
  const where: string[] = []
  const table = plan.index === 'words' ? 'search_words' : plan.match === null ? undefined : 'search_grams'
  if (table !== undefined) {
    where.push(`${table} MATCH @match`)
    params.match = plan.match
    params.tokens = plan.index === 'words' ? request.snippetTokens : request.snippetTokens * 3
  }
  if (plan.index === 'grams') {
    plan.likes.forEach((pattern, i) => {
      where.push(`t.text LIKE @like${i} ESCAPE '\\'`)
      params[`like${i}`] = pattern
    })
  }
  if (request.sessionId !== undefined) {
    where.push('s.id = @session')
    params.session = request.sessionId
  }
  if (request.onSurface !== undefined) {
    where.push('t.on_surface = @surface')
    params.surface = request.onSurface ? 1 : 0
  }
  const columns = 's.id AS id, s.title AS title, t.turn AS turn, t.seq AS seq, t.type AS type, t.field AS field, '
    + 't.on_surface AS on_surface, (t.seq < s.inherited) AS inherited'
  if (table === undefined) {
    return {
      sql: `SELECT ${columns}, 0 AS score, NULL AS snippet, t.text AS text FROM search_texts t
        JOIN search_sessions s ON s.key = t.session_key WHERE ${where.join(' AND ')}
        ORDER BY s.updated_at DESC, t.seq LIMIT @limit`,
      params,
    }
  }
  return {
    sql: `SELECT ${columns}, -bm25(${table}) AS score,
        snippet(${table}, 0, char(57344), char(57345), '${ELLIPSIS}', @tokens) AS snippet, NULL AS text
      FROM ${table} JOIN search_texts t ON t.id = ${table}.rowid JOIN search_sessions s ON s.key = t.session_key
      WHERE ${where.join(' AND ')} ORDER BY bm25(${table}), s.updated_at DESC, t.seq LIMIT @limit`,
    params,
  }
}

/**
 * The hits of `request`, best first.
 * @throws SessionSearchError `INVALID_QUERY` when FTS5 rejects the expression; `INDEX_UNAVAILABLE` when the index
 * cannot be read.
 */
export function runSearch(store: IndexStore, request: SearchRequest): IndexHit[] {
  const { plan } = request
  const { sql, params } = sqlOf(plan, request)
  let rows: Row[]
  try {
    rows = store.statement(sql).all(params) as Row[]
  } catch (error) {
    // FTS5 reports a query it cannot parse (or a column filter it does not know) as a plain SQLITE_ERROR.
    if ((error as { code?: unknown }).code === 'SQLITE_ERROR') throw invalidQuery(request.text, (error as Error).message)
    throw indexUnavailable(store.path, error)
  }
  const terms = plan.index === 'grams' ? plan.terms : []
  return rows.map(row => ({
    sessionId: row.id,
    title: row.title,
    turn: row.turn,
    seq: row.seq,
    type: row.type,
    field: row.field,
    onSurface: row.on_surface === 1,
    inherited: row.inherited === 1,
    snippet: row.snippet !== null ? snippetParts(row.snippet) : substringSnippet(row.text ?? '', terms, request.snippetTokens * 3),
    score: row.score,
  }))
}
