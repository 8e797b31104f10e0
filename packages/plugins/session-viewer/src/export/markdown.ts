/**
 * The Markdown export: the transcript as the viewer's log view shows it — the session's facts, then each turn with
 * its messages, reasoning (in a collapsed `<details>`), tool calls with their results (fenced), compactions with
 * their summary and tokens, markers and the turn's end. Message text keeps its Markdown (models write Markdown) but
 * not its HTML: `&`, `<` and `>` are written as entities, so no renderer turns session text into markup.
 */

import { assertNever } from '@logbook/session'
import { resultText } from '../model/content.ts'
import type { AssistantItem, LogItem, ToolRun } from '../model/item-types.ts'
import { segmentItems } from '../model/items.ts'
import type { SessionView } from '../model/session-view.ts'
import { count, reasonText, timeText, usageText } from '../render/format.ts'
import type { ForkRelatives } from '../render/session-page.ts'
import { forkCuts } from '../server/relatives.ts'

/** `text` with `&`, `<` and `>` as entities (shown as themselves by every Markdown renderer, never as HTML). */
export function mdText(text: string): string {
  return text.replace(/[&<>]/g, char => (char === '&' ? '&amp;' : char === '<' ? '&lt;' : '&gt;'))
}

/** `text` fenced with more backticks than any run inside it. */
export function fenced(text: string, info = ''): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map(match => match[0].length))
  const fence = '`'.repeat(Math.max(3, longest + 1))
  return `${fence}${info}\n${text}\n${fence}`
}

function details(summary: string, body: string): string {
  return `<details><summary>${summary}</summary>\n\n${body}\n\n</details>`
}

function toolMarkdown(run: ToolRun): string[] {
  const out = [`**Tool call** \`${run.name}\`${run.callSeq === undefined ? ' (never started)' : ''}`, '', fenced(run.arguments, 'json')]
  const result = run.result
  if (result === undefined) {
    out.push('', run.callSeq === undefined ? '_No result: the call never started._' : '_No result is stored._')
    return out
  }
  const flags = [
    result.synthetic === undefined ? '' : `synthetic: ${result.synthetic}`,
    result.errorCode ?? (result.isError ? 'error' : ''),
    result.shadowedBy === undefined ? '' : `not on the surface (seq ${result.shadowedBy})`,
  ].filter(flag => flag !== '')
  out.push('', `**Result**${flags.length === 0 ? '' : ` — ${flags.join(' · ')}`}`, '', fenced(resultText(result.parts), 'text'))
  return out
}

function assistantMarkdown(item: AssistantItem): string[] {
  const flags = [item.interrupted ? 'interrupted' : '', item.shadowedBy === undefined ? '' : `not on the surface (seq ${item.shadowedBy})`]
    .filter(flag => flag !== '')
  const out = [`**Model** · ${item.model}${item.usage === undefined ? '' : ` · ${usageText(item.usage)}`}${flags.length === 0 ? '' : ` · ${flags.join(' · ')}`}`]
  for (const text of item.reasoning) if (text !== '') out.push('', details('Reasoning', mdText(text)))
  if (item.text !== '') out.push('', mdText(item.text))
  for (const text of item.refusals) out.push('', `> **Refusal:** ${mdText(text).replace(/\n/g, '\n> ')}`)
  for (const run of item.tools) out.push('', ...toolMarkdown(run))
  return out
}

/** The Markdown of one item (a few lines, without surrounding blank lines). */
function itemMarkdown(item: LogItem): string[] {
  const off = (shadowedBy: number | undefined): string => (shadowedBy === undefined ? '' : ` · not on the surface (seq ${shadowedBy})`)
  switch (item.kind) {
    case 'system':
      return [`**System prompt${item.rewrite ? ' (changed)' : ''}**${off(item.shadowedBy)}`, '', mdText(item.text)]
    case 'user':
      return [`**${item.source === 'user' ? 'You' : mdText(item.source)}**${off(item.shadowedBy)}`, '', mdText(item.text),
        ...item.images.map(image => mdText(`[image ${image.name ?? ''} ${image.mediaType}: ${image.uri}]`))]
    case 'assistant':
      return assistantMarkdown(item)
    case 'partial':
      return [`**Model** · ${item.running ? 'streamed, no reply stored yet' : item.error === undefined ? 'attempt ended without a reply' : `attempt failed ${item.error.code}: ${mdText(item.error.message)}`}`, '', mdText(item.text)]
    case 'tool':
      return toolMarkdown(item.run)
    case 'compaction': {
      const tokens = item.tokensBefore === undefined ? '' : ` · ~${count(item.tokensBefore)} → ~${count(item.tokensAfter ?? 0)} tokens`
      const state = item.error !== undefined ? ` · failed ${item.error.code}: ${mdText(item.error.message)}` : item.endSeq === undefined ? ' · not closed' : ''
      const replaced = item.shadowedSeqs.length === 0 ? [] : ['', `_Replaced ${count(item.shadowedSeqs.length)} originals (seqs ${item.shadowedSeqs.join(', ')}), shown above where they were logged._`]
      const spent = item.usage === undefined ? '' : ` · summary ${usageText(item.usage)}`
      return [`**Compaction** (${item.trigger})${tokens}${state}${spent}`, ...(item.summary === undefined ? [] : ['', mdText(item.summary)]), ...replaced]
    }
    case 'prune':
      return [`_Pruned the result at seq ${item.targetSeq} on the surface: ${count(item.charsBefore)} → ${count(item.charsAfter)} characters._`]
    case 'replace':
      return [`**Replacement** (${item.type}) of seqs ${item.shadowedSeqs.join(', ')}`, '', mdText(item.text)]
    case 'fork-seed':
      return [`_Forked from \`${item.parent ?? 'its parent'}\` after seq ${item.afterSeq}: the events above are the parent's._`]
    case 'resumed':
      return ['_Session resumed._']
    case 'fork-cut':
      return [`_Forked here (after seq ${item.seq}) into ${item.children.map(child => `\`${child}\``).join(', ')}._`]
    case 'todos':
      return ['**Todos**', '', ...item.todos.map(todo => `- [${todo.status === 'completed' ? 'x' : ' '}] ${mdText(todo.content)} (${todo.status})`)]
    case 'title':
      return [`_Title set: ${mdText(item.title)}_`]
    case 'model':
      return [`_Model: ${item.provider}/${item.model}_`]
    case 'other':
      return [`_Event \`${item.type}\`_`]
    case 'turn-end':
      return [`_Turn ended: ${mdText(reasonText(item.reason).text)}_`]
    default:
      return assertNever(item)
  }
}

/** The whole Markdown document of `view`. */
export function sessionMarkdown(view: SessionView, relatives: ForkRelatives = { children: [] }): string {
  const last = view.events.at(-1)
  const turns = view.segments.filter(segment => segment.turn > 0).length
  const lines = [`# ${mdText(view.titleText ?? view.id)}`, '', '| | |', '|---|---|', `| Session | \`${view.id}\` |`,
    `| Created | ${timeText(view.header.createdAt)} |`, `| Updated | ${timeText(last?.time ?? view.header.createdAt)} |`,
    `| Events | ${count(view.events.length)} |`, `| Turns | ${count(turns)} |`, `| Tokens | ${usageText(view.totals)} |`]
  if (view.header.cwd !== undefined) lines.push(`| Folder | \`${view.header.cwd}\` |`)
  const { parent, children } = relatives
  if (parent !== undefined) lines.push(`| Parent | \`${parent.id}\`${parent.afterSeq === undefined ? '' : ` (cut after seq ${parent.afterSeq})`} |`)
  if (children.length > 0) lines.push(`| Forks | ${children.map(child => `\`${child.id}\`${child.afterSeq === undefined ? '' : ` (cut after seq ${child.afterSeq})`}`).join(', ')} |`)
  const cuts = forkCuts(relatives)
  for (let index = 0; index < view.segments.length; index++) {
    const folded = segmentItems(view, index, cuts)
    const state = folded.running ? 'open' : folded.reason === undefined ? '' : reasonText(folded.reason).kind
    const heading = folded.turn === 0 ? 'Before the first turn' : `Turn ${folded.turn}`
    lines.push('', `## ${[heading, state, usageText(folded.usage)].filter(part => part !== '').join(' · ')}`)
    for (const item of folded.items) lines.push('', ...itemMarkdown(item))
  }
  return `${lines.join('\n')}\n`
}
