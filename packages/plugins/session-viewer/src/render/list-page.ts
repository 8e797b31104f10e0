/**
 * The session list (title, updated, events, turns, tokens, parent) with the search box, the search results, and the
 * pages that say what went wrong (403, 404, a failure) in one sentence.
 */

import { html, type Html } from '../html.ts'
import type { ViewerSearchHit } from '../types.ts'
import { count, timeText } from './format.ts'

/** One row of the session list. */
export interface ListedSession {
  readonly id: string
  readonly title: string | null
  readonly updatedAt: number
  readonly events: number
  readonly turns: number | null
  readonly tokens: number | null
  readonly parent: string | null
}

/** The session page URL, opening at `seq` in the view that shows it. */
export function sessionHref(id: string, at?: { seq: number; view?: 'log' | 'surface' }): string {
  const base = `/session/${encodeURIComponent(id)}`
  if (at === undefined) return base
  const view = at.view === undefined ? '' : `&view=${at.view}`
  return `${base}?at=${at.seq}${view}#${at.view === 'surface' ? 's' : 'e'}${at.seq}`
}

/** The search box; `query` prefilled. */
export function searchForm(query = '', fts = false, session?: string): Html {
  return html`<form class="search" action="/search" method="get" role="search">
    <input type="search" name="q" value="${query}" placeholder="Search every session — what the model saw and what it no longer sees" aria-label="Search sessions" required>
    ${session === undefined ? '' : html`<input type="hidden" name="session" value="${session}">`}
    <label><input type="checkbox" name="fts" value="1" ${fts ? html`checked` : ''}> FTS syntax (AND, OR, NOT, NEAR, prefix*)</label>
    <button type="submit">Search</button></form>`
}

function top(): Html {
  return html`<header class="top"><a href="/">Sessions</a></header>`
}

/** The list page. */
export function listPageBody(rows: readonly ListedSession[], nextCursor: string | null, problems: readonly string[]): Html {
  const body = rows.length === 0
    ? html`<p class="notice">No stored sessions yet.</p>`
    : html`<table class="sessions"><thead><tr><th>Title</th><th>Updated</th><th>Events</th><th>Turns</th><th>Tokens</th><th>Parent</th></tr></thead><tbody>
      ${rows.map(row => html`<tr data-session="${row.id}"><td><a class="session-link" href="${sessionHref(row.id)}">${row.title ?? row.id}</a>${row.title === null ? '' : html`<div class="meta"><code>${row.id}</code></div>`}</td>
        <td>${timeText(row.updatedAt)}</td><td class="num">${count(row.events)}</td><td class="num">${row.turns === null ? '–' : count(row.turns)}</td>
        <td class="num">${row.tokens === null ? '–' : count(row.tokens)}</td>
        <td>${row.parent === null ? '–' : html`<a class="session-link" href="${sessionHref(row.parent)}">${row.parent}</a>`}</td></tr>`)}
      </tbody></table>`
  return html`${top()}<main class="list"><h1>Sessions</h1>${searchForm()}
    ${problems.map(problem => html`<p class="notice error">${problem}</p>`)}
    ${body}${nextCursor === null ? '' : html`<p><a rel="next" href="/?cursor=${encodeURIComponent(nextCursor)}">Older sessions ›</a></p>`}</main>`
}

/** The results page: hits, or the one-line message saying why there are none. */
export function searchPageBody(query: string, fts: boolean, outcome: { hits: readonly ViewerSearchHit[] } | { message: string }, session?: string): Html {
  let results: Html
  if ('message' in outcome) results = html`<p class="notice error" role="alert">${outcome.message}</p>`
  else if (outcome.hits.length === 0) results = html`<p class="notice">No session contains ${JSON.stringify(query)}.</p>`
  else {
    results = html`<ol class="hits">${outcome.hits.map(hit => html`<li data-session="${hit.sessionId}" data-seq="${hit.seq}">
      <a class="hit-link" href="${sessionHref(hit.sessionId, { seq: hit.seq, view: hit.onSurface ? 'surface' : 'log' })}">${hit.title ?? hit.sessionId}</a>
      <span class="meta">${hit.sessionId} · ${hit.turn === undefined ? '' : `turn ${hit.turn} · `}seq ${hit.seq} · ${hit.type} · ${hit.field}</span>
      <span class="badge ${hit.onSurface ? 'on-surface' : 'off-surface'}">${hit.onSurface ? 'on the surface' : 'only in the log'}</span>${hit.inherited ? html` <span class="badge inherited">inherited from the parent</span>` : ''}
      <div class="snippet">${hit.snippet.map(part => (part.match ? html`<mark>${part.text}</mark>` : part.text))}</div></li>`)}</ol>`
  }
  return html`${top()}<main class="search"><h1>Search</h1>${searchForm(query, fts, session)}${results}</main>`
}

/** A page that says, in one sentence, why there is nothing to show. */
export function problemPageBody(title: string, message: string): Html {
  return html`${top()}<main class="problem-page"><h1>${title}</h1><p class="notice error" role="alert">${message}</p></main>`
}
