/**
 * The HTML export: the viewer's session page as one self-contained file — every turn on one page, the stylesheet
 * inline, no script and a policy that forbids every fetch, so it opens from disk with no network. Links to other
 * sessions cannot work in a file, so the fork tree names them instead.
 */

import { pageOf } from '../model/pages.ts'
import type { SessionView } from '../model/session-view.ts'
import { documentHtml } from '../render/document.ts'
import { sessionPageBody, type ForkRelatives } from '../render/session-page.ts'
import { forkCuts } from '../server/relatives.ts'

/** Options of the HTML export. */
export interface HtmlFileOptions {
  readonly relatives?: ForkRelatives
  /** Replaced originals listed inside one compaction (the viewer's `originalsShown`). */
  readonly originalsShown: number
}

/** The whole document of `view`. */
export function sessionHtmlFile(view: SessionView, options: HtmlFileOptions): string {
  const relatives = options.relatives ?? { children: [] }
  const range = pageOf(view, Math.max(1, view.segments.length), { page: 1 })
  const body = sessionPageBody(view, {
    range, relatives, initialView: 'log', live: false, originalsShown: options.originalsShown, forks: forkCuts(relatives),
    link: () => undefined,
  })
  return documentHtml('file', `${view.titleText ?? view.id} — Logbook`, body)
}
