/**
 * Paging by turns: a long transcript is shown `turnsPerPage` turn segments at a time (the events before the first
 * turn join page 1), so a page stays small whatever the session's length. The default page is the last one.
 */

import type { SessionView } from './session-view.ts'

/** One page: segment indexes `from..to` (inclusive; `to < from` for an empty session). */
export interface PageRange {
  /** 1-based. */
  readonly page: number
  readonly pages: number
  readonly from: number
  readonly to: number
  /** Turns (segments after the preamble) in the session. */
  readonly turns: number
}

/** What a request asks for: a page number, or the page holding a seq; neither means the last page. */
export interface PageRequest {
  readonly page?: number
  readonly at?: number
}

/** The page `request` names (clamped into range). */
export function pageOf(view: SessionView, turnsPerPage: number, request: PageRequest = {}): PageRange {
  const preamble = view.segments[0]?.turn === 0 ? 1 : 0
  const turns = view.segments.length - preamble
  const pages = Math.max(1, Math.ceil(turns / turnsPerPage))
  let page = pages
  if (request.at !== undefined && view.events.length > 0) {
    const segment = view.segmentOf(Math.min(request.at, view.events.length - 1))
    page = Math.max(1, Math.ceil((segment - preamble + 1) / turnsPerPage))
  } else if (request.page !== undefined) {
    page = Math.min(pages, Math.max(1, request.page))
  }
  const from = page === 1 ? 0 : preamble + (page - 1) * turnsPerPage
  const to = Math.min(view.segments.length - 1, preamble + page * turnsPerPage - 1)
  return { page, pages, from, to, turns }
}
