/**
 * `@logbook/session-viewer`: read stored sessions in a browser (`ctx.sessionViewer`, the default export), and render
 * one as Markdown or as a self-contained HTML file. The viewer only reads: sessions are opened in read mode and
 * followed from their next seq, never locked, never written.
 */
import type { SessionHeader } from '@logbook/session'
import type { SessionPersistence } from '@logbook/session-persistence'
import { DEFAULT_VIEWER_CONFIG } from './config.ts'
import { sessionHtmlFile } from './export/html-file.ts'
import { sessionMarkdown } from './export/markdown.ts'
import { SessionView } from './model/session-view.ts'
import type { ForkRelatives } from './render/session-page.ts'
import { readRelatives } from './server/relatives.ts'
import { SessionViewer } from './service.ts'
import type { StoredLog } from './types.ts'

export default SessionViewer
export { SessionViewer }
export { DEFAULT_VIEWER_CONFIG, SessionViewerConfigSchema } from './config.ts'
export { SESSION_VIEWER_ERROR_CODES, SessionViewerError, type SessionViewerErrorCode } from './errors.ts'
export { VIEWER_HOST } from './server/server.ts'
export { COOKIE_NAME } from './server/access.ts'
export type * from './types.ts'
export type { ForkRelatives } from './render/session-page.ts'

/** Options of the two exports. */
export interface RenderOptions {
  /** Parent and children to name (`readForkRelatives`); none when absent. */
  readonly relatives?: ForkRelatives
  /** Replaced originals listed inside one compaction (HTML only; default as the viewer's config). */
  readonly originalsShown?: number
}

/**
 * The transcript of `log` in Markdown, as the viewer's log view shows it.
 * @throws SessionViewerError `INVALID_LOG` when the events are not contiguous from seq 0.
 */
export function renderSessionMarkdown(log: StoredLog, options: RenderOptions = {}): string {
  return sessionMarkdown(new SessionView(log.header.id, log.header, log.events), options.relatives)
}

/**
 * The viewer's session page of `log` as one self-contained HTML document (every turn, no script, nothing fetched).
 * @throws SessionViewerError `INVALID_LOG` when the events are not contiguous from seq 0.
 */
export function renderSessionHtml(log: StoredLog, options: RenderOptions = {}): string {
  const view = new SessionView(log.header.id, log.header, log.events)
  return sessionHtmlFile(view, {
    originalsShown: options.originalsShown ?? DEFAULT_VIEWER_CONFIG.originalsShown,
    ...(options.relatives === undefined ? {} : { relatives: options.relatives }),
  })
}

/**
 * The parent (from `header`) and the stored children of a session, each with the seq it was cut after.
 * @throws the persistence errors of `list` (`STORE_IO`, …).
 */
export function readForkRelatives(persistence: SessionPersistence, header: SessionHeader): Promise<ForkRelatives> {
  return readRelatives(persistence, header)
}
