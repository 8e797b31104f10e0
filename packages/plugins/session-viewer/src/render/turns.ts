/**
 * The two views of a page: the log ("everything") as one article per turn segment, and the surface ("what the model
 * sees") as groups of consecutive nodes. Each piece has a stable element id so a live update can replace it.
 */

import { html, type Html } from '../html.ts'
import type { ForkCuts } from '../model/item-types.ts'
import { messageItem, segmentItems } from '../model/items.ts'
import type { SessionView } from '../model/session-view.ts'
import type { SurfaceGroup } from '../model/surface-groups.ts'
import { count, reasonText, timeText, usageText } from './format.ts'
import { itemHtml, type ItemContext } from './items.ts'

/** What the views need besides the session. */
export interface ViewContext {
  readonly link: ItemContext['link']
  readonly originalsShown: number
  readonly forks: ForkCuts
}

/** The element id of a segment's article. */
export function segmentId(view: SessionView, index: number): string {
  return `turn-${view.segments[index]!.turn}`
}

/** The element id of a surface group. */
export function groupId(group: SurfaceGroup): string {
  return `sg-${group.position}`
}

function turnLabel(turn: number): string {
  return turn === 0 ? 'Before the first turn' : `Turn ${turn}`
}

/** The badge of an open turn that is not known to be running: its writer stopped, or nobody asked (an export). */
export function openBadge(view: SessionView): Html {
  return view.writer === 'stopped'
    ? html`<span class="badge stopped" title="No turn/end is stored and no process holds the session: a resume closes the turn as interrupted">open — its writer stopped</span>`
    : html`<span class="badge stopped" title="No turn/end was stored when this was rendered">open</span>`
}

/** The log-view article of segment `index`. */
export function segmentHtml(view: SessionView, index: number, context: ViewContext): Html {
  const folded = segmentItems(view, index, context.forks)
  const running = folded.running && view.writer === 'live'
  const items: ItemContext = { view, link: context.link, originalsShown: context.originalsShown, anchor: 'e', running }
  let state: Html = html``
  if (running) state = html`<span class="badge running" title="No turn/end is stored yet: the turn is being written">running</span>`
  else if (folded.running) state = openBadge(view)
  else if (folded.reason !== undefined) {
    const { kind } = reasonText(folded.reason)
    state = html`<span class="badge reason ${kind}">${kind}</span>`
  }
  const inherited = folded.start < view.inheritedCount ? html`<span class="badge inherited">inherited from the parent</span>` : ''
  const started = view.events[folded.start]?.time
  const classes = ['turn', folded.running ? 'running' : '', folded.start < view.inheritedCount ? 'inherited' : ''].filter(c => c !== '').join(' ')
  return html`<article class="${classes}" id="${segmentId(view, index)}" data-turn="${folded.turn}" data-start="${folded.start}" data-end="${folded.end}">
    <header class="turn-head"><h2>${turnLabel(folded.turn)}</h2> ${state} ${inherited}
    <span class="usage" title="Tokens this turn">${usageText(folded.usage)}</span>
    ${started === undefined ? '' : html`<time class="meta">${timeText(started)}</time>`}</header>
    ${folded.items.map(item => itemHtml(items, item))}</article>`
}

/** The surface-view section of one group. */
export function groupHtml(view: SessionView, group: SurfaceGroup, context: ViewContext): Html {
  const running = view.running && group.segment === view.segments.length - 1
  const items: ItemContext = { view, link: context.link, originalsShown: context.originalsShown, anchor: 's', running }
  const turn = view.segments[group.segment]!.turn
  const nodes = group.seqs.map(seq => {
    const item = messageItem(view, view.events[seq]!)
    return item === undefined ? html`<div class="missing" data-seq="${seq}">event ${seq}</div>` : itemHtml(items, item)
  })
  return html`<section class="surface-group" id="${groupId(group)}" data-turn="${turn}" data-position="${group.position}">
    <header class="group-head"><span class="meta">${turnLabel(turn)} · surface positions ${count(group.position)}–${count(group.position + group.seqs.length - 1)}</span></header>
    ${nodes}</section>`
}
