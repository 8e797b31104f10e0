/**
 * HTML of display items: one function per item kind behind one exhaustive switch. Every text is escaped by `html`;
 * images are shown as references (never fetched), so a page never loads anything from elsewhere.
 */

import { assertNever, type ImageRef } from '@logbook/session'
import { html, join, type Html } from '../html.ts'
import type { ResultPart } from '../model/content.ts'
import type { AssistantItem, CompactionItem, LogItem, PartialItem, ToolOutcome, ToolRun } from '../model/item-types.ts'
import { messageItem } from '../model/items.ts'
import type { SessionView } from '../model/session-view.ts'
import { count, reasonText, usageText } from './format.ts'

/** What item renderers need besides the item. */
export interface ItemContext {
  readonly view: SessionView
  /** The href of another session (at a seq), or `undefined` where links cannot work (an exported file). */
  link(sessionId: string, seq?: number): string | undefined
  /** At most this many originals are listed inside a compaction. */
  readonly originalsShown: number
  /** Anchor id prefix of this view (`e` log, `s` surface); `undefined` inside a compaction's originals (no ids). */
  readonly anchor: 'e' | 's' | undefined
  /** The item's turn has no end yet. */
  readonly running: boolean
}

function anchorAttrs(context: ItemContext, seq: number): Html {
  return context.anchor === undefined ? html`data-seq="${seq}"` : html`id="${context.anchor}${seq}" data-seq="${seq}"`
}

function sessionLink(context: ItemContext, id: string, seq?: number): Html {
  const href = context.link(id, seq)
  return href === undefined ? html`<code>${id}</code>` : html`<a class="session-link" href="${href}">${id}</a>`
}

function shadowBadge(context: ItemContext, shadowedBy: number | undefined): Html | undefined {
  if (shadowedBy === undefined) return undefined
  const by = context.view.events[shadowedBy]
  const what = by?.type === 'tool/result' ? 'pruned' : 'compacted'
  return html`<span class="badge off-surface" title="The model no longer sees this: event ${shadowedBy} replaced it">not on the surface — ${what} (seq ${shadowedBy})</span>`
}

function imageRef(image: ImageRef): Html {
  const size = image.width !== undefined && image.height !== undefined ? ` ${image.width}×${image.height}` : ''
  return html`<span class="image-ref">[image ${image.name ?? ''} ${image.mediaType}${size}: <code>${image.uri}</code>]</span>`
}

function resultBody(parts: readonly ResultPart[]): Html {
  return join(parts.map(part => (part.kind === 'text' ? html`<pre class="result-text">${part.text}</pre>` : imageRef(part.image))))
}

function outcomeHtml(context: ItemContext, run: ToolRun, outcome: ToolOutcome | undefined): Html {
  if (outcome === undefined) {
    if (run.callSeq === undefined) return html`<div class="result pending"><span class="badge">${context.running ? 'not started yet' : 'never started'}</span></div>`
    return html`<div class="result pending"><span class="badge running">${context.running ? 'running' : 'no result stored'}</span></div>`
  }
  const classes = ['result', outcome.isError ? 'error' : '', outcome.synthetic === undefined ? '' : `synthetic ${outcome.synthetic}`].filter(c => c !== '').join(' ')
  return html`<div class="${classes}" ${anchorAttrs(context, outcome.seq)}>
    ${outcome.synthetic === undefined ? '' : html`<span class="badge synthetic" title="Written by Logbook when the turn was closed, not by the tool">synthetic: ${outcome.synthetic}</span>`}
    ${outcome.errorCode === undefined ? (outcome.isError ? html`<span class="badge error">error</span>` : '') : html`<span class="badge error code">${outcome.errorCode}</span>`}
    ${shadowBadge(context, outcome.shadowedBy)}${resultBody(outcome.parts)}</div>`
}

function toolHtml(context: ItemContext, run: ToolRun, rewrites?: number): Html {
  const started = run.callSeq === undefined ? '' : html`<span class="anchor" ${context.anchor === undefined ? '' : html`id="${context.anchor}${run.callSeq}"`}></span>`
  const call = run.arguments === ''
    ? html`<div class="call">${rewrites === undefined ? 'Result of' : 'Pruned result of'} <code class="tool-name">${run.name}</code></div>`
    : html`<div class="call"><span class="role">Tool call</span> <code class="tool-name">${run.name}</code><pre class="arguments">${run.arguments}</pre></div>`
  const original = rewrites === undefined ? '' : originalsHtml(context, [rewrites], 'Original result')
  return html`<div class="tool">${started}${call}${outcomeHtml(context, run, run.result)}${original}</div>`
}

function assistantHtml(context: ItemContext, item: AssistantItem): Html {
  const reasoning = item.reasoning.filter(text => text !== '').map(text => html`<details class="reasoning"><summary>Reasoning</summary><pre>${text}</pre></details>`)
  const refusals = item.refusals.map(text => html`<div class="refusal"><span class="badge refusal">refusal</span><div class="text">${text}</div></div>`)
  const usage = item.usage !== undefined ? usageText(item.usage) : item.usageMissing ? 'the provider reported no usage' : ''
  const meta = [usage, item.chunks > 0 ? `${count(item.chunks)} chunks folded` : ''].filter(t => t !== '').join(' · ')
  return html`<div class="msg assistant" ${anchorAttrs(context, item.seq)}>
    <div class="head"><span class="role">Model</span> <span class="model">${item.model}</span>
    ${item.interrupted ? html`<span class="badge interrupted">interrupted</span>` : ''}${shadowBadge(context, item.shadowedBy)}
    ${meta === '' ? '' : html`<span class="meta">${meta}</span>`}</div>
    ${reasoning}${item.text === '' ? '' : html`<div class="text">${item.text}</div>`}${refusals}
    ${item.tools.map(run => toolHtml(context, run))}</div>`
}

function partialHtml(context: ItemContext, item: PartialItem): Html {
  const badge = item.running && context.running
    ? html`<span class="badge running">streaming…</span>`
    : item.running ? html`<span class="badge stopped">streamed, no reply stored</span>`
    : html`<span class="badge error">${item.error === undefined ? 'attempt ended without a reply' : `attempt failed ${item.error.code}: ${item.error.message}`}</span>`
  return html`<div class="msg assistant partial" ${anchorAttrs(context, item.seq)}>
    <div class="head"><span class="role">Model</span> ${badge} <span class="meta">${count(item.chunks)} chunks</span></div>
    ${item.reasoning === '' ? '' : html`<details class="reasoning"><summary>Reasoning</summary><pre>${item.reasoning}</pre></details>`}
    ${item.text === '' ? '' : html`<div class="text">${item.text}</div>`}</div>`
}

/** A `<details>` listing the events `seqs` (capped), each rendered on its own. */
function originalsHtml(context: ItemContext, seqs: readonly number[], label: string): Html {
  const inner: ItemContext = { ...context, anchor: undefined }
  const shown = seqs.slice(0, context.originalsShown).map(seq => {
    const event = context.view.events[seq]
    const item = event === undefined ? undefined : messageItem(context.view, event)
    return item === undefined ? html`<div class="missing" data-seq="${seq}">event ${seq}</div>` : itemHtml(inner, item)
  })
  const more = seqs.length > shown.length ? html`<p class="more">… and ${count(seqs.length - shown.length)} more, shown in place in the log view.</p>` : ''
  return html`<details class="originals"><summary>${label}</summary>${shown}${more}</details>`
}

function compactionHtml(context: ItemContext, item: CompactionItem): Html {
  const anchors = [item.summarySeq, item.checkpointSeq, item.endSeq]
    .filter((seq): seq is number => seq !== undefined && context.anchor !== undefined)
    .map(seq => html`<span class="anchor" id="${context.anchor}${seq}"></span>`)
  const tokens = item.tokensBefore === undefined ? '' : html`<span class="tokens">~${count(item.tokensBefore)} → ~${count(item.tokensAfter ?? 0)} tokens</span>`
  let state: Html = html``
  if (item.error !== undefined) state = html`<span class="badge error">failed ${item.error.code}: ${item.error.message}</span>`
  else if (item.endSeq === undefined) state = html`<span class="badge running">${context.running ? 'compacting…' : 'never closed'}</span>`
  const originals = item.shadowedSeqs.length === 0 ? '' : originalsHtml(context, item.shadowedSeqs, `Replaced ${count(item.shadowedSeqs.length)} originals`)
  return html`<div class="compaction" ${anchorAttrs(context, item.seq)}>${anchors}
    <div class="head"><span class="role">Compaction</span> <span class="meta">${item.trigger}</span> ${tokens} ${state}
    ${item.usage === undefined ? '' : html`<span class="meta">summary ${usageText(item.usage)}</span>`}</div>
    ${item.summary === undefined ? '' : html`<div class="text summary">${item.summary}</div>`}${originals}</div>`
}

/** The HTML of one item. */
export function itemHtml(context: ItemContext, item: LogItem): Html {
  switch (item.kind) {
    case 'system':
      return html`<div class="msg system" ${anchorAttrs(context, item.seq)}><div class="head"><span class="role">${item.rewrite ? 'System prompt (changed)' : 'System prompt'}</span>${shadowBadge(context, item.shadowedBy)}</div><div class="text">${item.text}</div></div>`
    case 'user':
      return html`<div class="msg user" ${anchorAttrs(context, item.seq)}><div class="head"><span class="role">${item.source === 'user' ? 'You' : item.source}</span>${shadowBadge(context, item.shadowedBy)}</div><div class="text">${item.text}</div>${item.images.map(imageRef)}</div>`
    case 'assistant':
      return assistantHtml(context, item)
    case 'partial':
      return partialHtml(context, item)
    case 'tool':
      return html`<div class="msg tool-alone" ${anchorAttrs(context, item.seq)}>${toolHtml(context, item.run, item.rewrites)}</div>`
    case 'compaction':
      return compactionHtml(context, item)
    case 'prune':
      return html`<div class="marker prune" ${anchorAttrs(context, item.seq)}>Pruned the result at seq ${item.targetSeq} on the surface: ${count(item.charsBefore)} → ${count(item.charsAfter)} characters (~${count(item.tokensBefore)} tokens before)</div>`
    case 'replace':
      return html`<div class="msg replace" ${anchorAttrs(context, item.seq)}><div class="head"><span class="role">Replacement (${item.type})</span></div><div class="text">${item.text}</div>${originalsHtml(context, item.shadowedSeqs, `Replaced ${count(item.shadowedSeqs.length)} originals`)}</div>`
    case 'fork-seed':
      return html`<div class="marker fork-seed" ${anchorAttrs(context, item.seq)}>Forked from ${item.parent === undefined ? 'its parent' : sessionLink(context, item.parent, item.afterSeq)} after seq ${item.afterSeq}: the events above are the parent's</div>`
    case 'resumed':
      return html`<div class="marker resumed" ${anchorAttrs(context, item.seq)}>Session resumed</div>`
    case 'fork-cut':
      return html`<div class="marker fork-cut" data-seq="${item.seq}">Forked here (after seq ${item.seq}) into ${join(item.children.map((child, i) => html`${i === 0 ? '' : ', '}${sessionLink(context, child)}`))}</div>`
    case 'todos':
      return html`<details class="todos" ${anchorAttrs(context, item.seq)}><summary>Todos (${item.todos.length})</summary><ul>${item.todos.map(todo => html`<li class="${todo.status}">${todo.content} <span class="meta">${todo.status}</span></li>`)}</ul></details>`
    case 'title':
      return html`<div class="marker meta" ${anchorAttrs(context, item.seq)}>Title set: ${item.title}</div>`
    case 'model':
      return html`<div class="marker meta" ${anchorAttrs(context, item.seq)}>Model: ${item.provider}/${item.model}</div>`
    case 'other':
      return html`<div class="marker meta" ${anchorAttrs(context, item.seq)}>Event <code>${item.type}</code></div>`
    case 'turn-end': {
      const { kind, text } = reasonText(item.reason)
      return html`<div class="turn-end ${kind}" ${anchorAttrs(context, item.seq)}><span class="badge reason ${kind}">${text}</span></div>`
    }
    default:
      return assertNever(item)
  }
}
