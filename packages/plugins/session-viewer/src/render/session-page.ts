/**
 * The session page: head (title, counts, total usage, state), the fork tree, the switch between "everything" (the
 * log) and "what the model sees" (the surface), the pager, and both views of the page's turns. The switch is two
 * radio inputs and CSS, so it works in an exported file without a script.
 */

import { assertNever } from '@logbook/session'
import { html, type Html } from '../html.ts'
import type { PageRange } from '../model/pages.ts'
import type { SessionView } from '../model/session-view.ts'
import { surfaceGroups } from '../model/surface-groups.ts'
import { count, timeText, usageText } from './format.ts'
import { groupHtml, segmentHtml, type ViewContext } from './turns.ts'

/** A session's place in its fork tree: the parent it was cut from, and its children with their cuts. */
export interface ForkRelatives {
  /** `afterSeq` is absent for a parent that the session was not forked from (a subagent's). */
  readonly parent?: { readonly id: string; readonly afterSeq?: number }
  readonly children: readonly { readonly id: string; readonly afterSeq?: number }[]
}

/** Which view a page opens in. */
export type ViewName = 'log' | 'surface'

/** Everything the session page shows besides the session itself. */
export interface SessionPageOptions extends ViewContext {
  readonly range: PageRange
  readonly initialView: ViewName
  readonly relatives: ForkRelatives
  /** The href of page `n` in view `v`; absent in an exported file (one page holds every turn). */
  readonly pageHref?: (page: number, view: ViewName) => string
  /** The page follows the session live (served pages). */
  readonly live: boolean
}

function openState(view: SessionView, open: number): Html {
  switch (view.writer) {
    case 'live':
      return html`<p class="state"><span class="badge running">turn ${open} running</span> <span class="meta">its end is not stored yet; this page follows the log</span></p>`
    case 'stopped':
      return html`<p class="state"><span class="badge stopped">turn ${open} is open; its writer stopped</span> <span class="meta">no process holds the session: a resume closes the turn as interrupted</span></p>`
    case 'unknown':
      return html`<p class="state"><span class="badge stopped">turn ${open} is open</span> <span class="meta">its end was not stored when this was rendered</span></p>`
    default:
      return assertNever(view.writer)
  }
}

/** The head block (replaced as a whole by live updates). */
export function sessionHeadHtml(view: SessionView): Html {
  const last = view.events.at(-1)
  const open = view.openTurn
  const turns = view.segments.filter(segment => segment.turn > 0).length
  return html`<section class="session-head" id="session-head">
    <h1>${view.titleText ?? view.id}</h1>
    <dl class="facts">
      <div><dt>Session</dt><dd><code>${view.id}</code></dd></div>
      <div><dt>Created</dt><dd>${timeText(view.header.createdAt)}</dd></div>
      <div><dt>Updated</dt><dd>${timeText(last?.time ?? view.header.createdAt)}</dd></div>
      <div><dt>Events</dt><dd class="event-count">${count(view.events.length)}</dd></div>
      <div><dt>Turns</dt><dd>${count(turns)}</dd></div>
      <div><dt>Tokens</dt><dd class="total-usage">${usageText(view.totals)}</dd></div>
      ${view.header.cwd === undefined ? '' : html`<div><dt>Folder</dt><dd><code>${view.header.cwd}</code></dd></div>`}
    </dl>
    ${open === null ? '' : openState(view, open)}
    ${view.surfaceProblem === undefined ? '' : html`<p class="problem" role="alert">The surface cannot be replayed: ${view.surfaceProblem}</p>`}
  </section>`
}

function linkOrCode(options: SessionPageOptions, id: string, seq?: number): Html {
  const href = options.link(id, seq)
  return href === undefined ? html`<code>${id}</code>` : html`<a class="session-link" href="${href}">${id}</a>`
}

function cutText(afterSeq: number | undefined): Html {
  return afterSeq === undefined ? html`<span class="meta">not a fork</span>` : html`<span class="meta">cut after seq ${afterSeq}</span>`
}

function forkTreeHtml(view: SessionView, options: SessionPageOptions): Html {
  const { parent, children } = options.relatives
  if (parent === undefined && children.length === 0) return html``
  return html`<nav class="fork-tree" aria-label="Fork tree"><h2>Fork tree</h2><ul>
    ${parent === undefined ? '' : html`<li class="parent">Parent: ${linkOrCode(options, parent.id, parent.afterSeq)} ${cutText(parent.afterSeq)}</li>`}
    <li class="self"><strong>${view.id}</strong>${children.length === 0 ? '' : html`<ul>
      ${children.map(child => html`<li class="child">${linkOrCode(options, child.id)} ${cutText(child.afterSeq)}${child.afterSeq === undefined ? '' : html` <a class="cut-link" href="${options.link(view.id, child.afterSeq) ?? `#e${child.afterSeq}`}">show the cut</a>`}</li>`)}
    </ul>`}</li></ul></nav>`
}

function pagerHtml(options: SessionPageOptions): Html {
  const { range, pageHref } = options
  if (pageHref === undefined || range.pages <= 1) return html``
  const link = (page: number, label: string, rel: string): Html => (page === range.page || page < 1 || page > range.pages
    ? html`<span class="disabled">${label}</span>`
    : html`<a href="${pageHref(page, options.initialView)}" data-page="${page}" rel="${rel}">${label}</a>`)
  return html`<nav class="pager" aria-label="Pages">
    ${link(1, '« first', 'first')} ${link(range.page - 1, '‹ older', 'prev')}
    <span class="where">page ${range.page} of ${range.pages} (${count(range.turns)} turns)</span>
    ${link(range.page + 1, 'newer ›', 'next')} ${link(range.pages, 'last »', 'last')}</nav>`
}

/** The page body. */
export function sessionPageBody(view: SessionView, options: SessionPageOptions): Html {
  const { range } = options
  const segments: Html[] = []
  for (let index = range.from; index <= range.to; index++) segments.push(segmentHtml(view, index, options))
  const groups = surfaceGroups(view, range.from, range.to).map(group => groupHtml(view, group, options))
  const tail = range.page === range.pages
  const surface = options.initialView === 'surface'
  return html`<header class="top"><a href="${options.pageHref === undefined ? '#' : '/'}">Sessions</a></header>
  <main class="session" data-session="${view.id}" data-next-seq="${view.nextSeq}" data-live="${String(options.live)}" data-tail="${String(tail)}">
    ${sessionHeadHtml(view)}${forkTreeHtml(view, options)}
    <input type="radio" name="view" id="view-log" class="view-switch" value="log" ${surface ? '' : html`checked`}>
    <input type="radio" name="view" id="view-surface" class="view-switch" value="surface" ${surface ? html`checked` : ''}>
    <div class="tabs" role="group" aria-label="View"><label for="view-log" class="tab tab-log">Everything (the log)</label><label for="view-surface" class="tab tab-surface">What the model sees</label></div>
    ${pagerHtml(options)}
    <div class="views">
      <section class="log-view" id="log-view" aria-label="Everything (the log)">${segments}</section>
      <section class="surface-view" id="surface-view" aria-label="What the model sees">
        ${groups.length === 0 ? html`<p class="meta empty">No surface node of these turns is on the surface.</p>` : groups}</section>
    </div>
    ${pagerHtml(options)}
  </main>`
}
