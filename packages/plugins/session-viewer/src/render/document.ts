/**
 * The HTML document around every page. Served pages link the package's stylesheet and script from `/assets/`; an
 * exported file carries the stylesheet inline and no script, with a policy that forbids every fetch, so it opens
 * from disk with no network.
 */

import { readFileSync } from 'node:fs'
import { html, trusted, type Html } from '../html.ts'

/** Where a document gets its stylesheet and script. */
export type DocumentMode = 'served' | 'file'

const cache = new Map<string, string>()

/**
 * The text of a file of the package's `assets/` folder (read once). This module sits one folder below the package
 * root in both `src/` and `dist/`, hence `../../assets`.
 */
export function assetText(name: 'viewer.css' | 'viewer.js'): string {
  let text = cache.get(name)
  if (text === undefined) {
    text = readFileSync(new URL(`../../assets/${name}`, import.meta.url), 'utf8')
    cache.set(name, text)
  }
  return text
}

/** The policy of an exported file: inline styles only, nothing fetched, no script. */
export const FILE_POLICY = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"

/** A whole document. */
export function documentHtml(mode: DocumentMode, title: string, body: Html): string {
  const head = mode === 'served'
    ? html`<link rel="stylesheet" href="/assets/viewer.css"><script type="module" src="/assets/viewer.js"></script>`
    : html`<meta http-equiv="Content-Security-Policy" content="${FILE_POLICY}"><style>${trusted(assetText('viewer.css'))}</style>`
  return `<!doctype html>\n${html`<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>${head}</head><body>${body}</body></html>`.text}\n`
}
