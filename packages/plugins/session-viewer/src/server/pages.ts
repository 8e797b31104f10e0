/**
 * The served pages: the session list, search results, a session page and its live updates. Each handler reads
 * through the read-only paths (listing, read handles, cold projection snapshots, the search service) and answers
 * with a status and a whole document; a failure is one sentence on the page, never a stack.
 */

import { codeOf } from '@logbook/session'
import type { SessionPersistence } from '@logbook/session-persistence'
import type { SessionProjections, StatsView } from '@logbook/session-projection'
import { lineOf } from '../errors.ts'
import { pageOf } from '../model/pages.ts'
import type { SessionView } from '../model/session-view.ts'
import { surfaceGroups } from '../model/surface-groups.ts'
import { documentHtml } from '../render/document.ts'
import { listPageBody, problemPageBody, searchPageBody, sessionHref, type ListedSession } from '../render/list-page.ts'
import { sessionHeadHtml, sessionPageBody, type ForkRelatives, type ViewName } from '../render/session-page.ts'
import { groupHtml, groupId, segmentHtml, segmentId, type ViewContext } from '../render/turns.ts'
import type { SessionViewerConfig, ViewerSearch } from '../types.ts'
import type { LiveUpdate } from './live.ts'
import { forkCuts, readRelatives } from './relatives.ts'
import type { SessionCache } from './session-cache.ts'

/** What the handlers read from. */
export interface PageDeps {
  readonly persistence: () => SessionPersistence
  readonly projections: () => SessionProjections | undefined
  readonly search: () => ViewerSearch | undefined
  readonly cache: SessionCache
  readonly config: SessionViewerConfig
  /** The fork tree last read for each session page, reused by its live updates. */
  readonly relatives: Map<string, ForkRelatives>
  warn(message: string): void
}

/** A whole answer. */
export interface PageResult {
  readonly status: number
  readonly html: string
}

/** A page that says why there is nothing to show. */
export function problemPage(status: number, title: string, message: string): PageResult {
  return { status, html: documentHtml('served', title, problemPageBody(title, message)) }
}

function viewContext(deps: PageDeps, relatives: ForkRelatives): ViewContext {
  return {
    link: (id, seq) => sessionHref(id, seq === undefined ? undefined : { seq, view: 'log' }),
    originalsShown: deps.config.originalsShown,
    forks: forkCuts(relatives),
  }
}

async function listedSession(deps: PageDeps, summary: Awaited<ReturnType<SessionPersistence['list']>>['items'][number]): Promise<ListedSession> {
  const base = { id: summary.id, updatedAt: summary.updatedAt, events: summary.eventCount, parent: summary.header.parentSession ?? null }
  const held = deps.cache.held(summary.id)
  if (held !== undefined && held.nextSeq === summary.eventCount) {
    const turns = held.segments.filter(segment => segment.turn > 0).length
    return { ...base, title: held.titleText, turns, tokens: held.totals.inputTokens + held.totals.outputTokens }
  }
  try {
    const snapshot = await deps.projections()?.coldSnapshot(summary.id)
    const stats = snapshot?.values.stats as StatsView | undefined
    const title = snapshot?.values.title
    return {
      ...base, title: typeof title === 'string' ? title : null, turns: stats?.turns ?? null,
      tokens: stats === undefined ? null : stats.inputTokens + stats.outputTokens,
    }
  } catch {
    // Title, turns and tokens are best effort: the row still names the session.
    return { ...base, title: null, turns: null, tokens: null }
  }
}

/** `/`: a page of stored sessions, latest update first. */
export async function listPage(deps: PageDeps, url: URL): Promise<PageResult> {
  const cursor = url.searchParams.get('cursor') ?? undefined
  let page: Awaited<ReturnType<SessionPersistence['list']>>
  try {
    page = await deps.persistence().list({ limit: deps.config.listLimit, ...(cursor === undefined ? {} : { cursor }) })
  } catch (error) {
    if (cursor !== undefined && codeOf(error) === 'INVALID_ARGUMENT') return problemPage(400, 'Sessions', `That page link is not valid: ${lineOf(error)}`)
    throw error
  }
  const rows = await Promise.all(page.items.map(summary => listedSession(deps, summary)))
  const problems = page.problems.map(problem => `Cannot list ${problem.sessionId ?? problem.location}: ${lineOf(problem.error)}`)
  return { status: 200, html: documentHtml('served', 'Sessions — Logbook', listPageBody(rows, page.nextCursor, problems)) }
}

/** `/search?q=…[&fts=1][&session=…]`: the hits, or one sentence saying why there are none. */
export async function searchPage(deps: PageDeps, url: URL): Promise<PageResult> {
  const query = (url.searchParams.get('q') ?? '').trim()
  const fts = url.searchParams.get('fts') === '1'
  const session = url.searchParams.get('session') ?? undefined
  const answer = (status: number, outcome: Parameters<typeof searchPageBody>[2]): PageResult => (
    { status, html: documentHtml('served', `${query === '' ? 'Search' : query} — Logbook`, searchPageBody(query, fts, outcome, session)) })
  if (query === '') return answer(400, { message: 'Type a word or phrase to search for.' })
  const search = deps.search()
  if (search === undefined) return answer(503, { message: 'Search is not available: this app loads no search plugin (@logbook/session-search).' })
  try {
    const hits = await search.query(query, { limit: deps.config.searchLimit, syntax: fts ? 'fts' : 'plain', ...(session === undefined ? {} : { sessionId: session }) })
    return answer(200, { hits })
  } catch (error) {
    const code = codeOf(error)
    if (code === 'INVALID_QUERY' || code === 'INVALID_ARGUMENT' || code === 'SESSION_NOT_FOUND') return answer(400, { message: lineOf(error) })
    deps.warn(`search for ${JSON.stringify(query)} failed: ${lineOf(error)}`)
    return answer(500, { message: `Search failed: ${lineOf(error)}` })
  }
}

function integerParam(url: URL, name: string): number | undefined {
  const text = url.searchParams.get(name)
  return text !== null && /^\d{1,15}$/.test(text) ? Number(text) : undefined
}

/** `/session/<id>[?page=n|?at=seq][&view=log|surface]`. */
export async function sessionPage(deps: PageDeps, id: string, url: URL): Promise<PageResult> {
  const { view } = await deps.cache.fresh(id)
  if (view.openTurn !== null) {
    // An open turn: ask whether a process holds the session (02 §1.3's claim), so a stopped writer's turn is not
    // shown as running. Its closers are not used: the viewer never closes a turn.
    const { claim } = await deps.persistence().inspect(id)
    view.writer = claim === 'none' ? 'stopped' : 'live'
  }
  const relatives = await readRelatives(deps.persistence(), view.header)
  deps.relatives.set(id, relatives)
  const at = integerParam(url, 'at')
  const page = integerParam(url, 'page')
  const range = pageOf(view, deps.config.turnsPerPage, { ...(at === undefined ? {} : { at }), ...(page === undefined ? {} : { page }) })
  const initialView: ViewName = url.searchParams.get('view') === 'surface' ? 'surface' : 'log'
  const body = sessionPageBody(view, {
    ...viewContext(deps, relatives), range, initialView, relatives, live: true,
    pageHref: (n, v) => `${sessionHref(id)}?page=${n}&view=${v}`,
  })
  return { status: 200, html: documentHtml('served', `${view.titleText ?? id} — Logbook`, body) }
}

/** The live update for a page that has seen the events before `after`. */
export function liveUpdate(deps: PageDeps, view: SessionView, after: number): LiveUpdate {
  const context = viewContext(deps, deps.relatives.get(view.id) ?? { children: [] })
  const first = view.segmentOf(after)
  const log = []
  for (let index = first; index < view.segments.length; index++) {
    log.push({ id: segmentId(view, index), html: segmentHtml(view, index, context).text })
  }
  const surface = surfaceGroups(view, first, view.segments.length - 1)
    .filter(group => group.seqs.some(seq => seq >= after))
    .map(group => ({ id: groupId(group), html: groupHtml(view, group, context).text }))
  return { head: sessionHeadHtml(view).text, log, surface, nextSeq: view.nextSeq }
}

/** The 404 page of a session id that is not stored. */
export function unknownSession(id: string): PageResult {
  return problemPage(404, 'Session not found', `No stored session has the id ${JSON.stringify(id)}.`)
}

