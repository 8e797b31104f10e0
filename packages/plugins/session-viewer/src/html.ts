/**
 * HTML text built safely: `html` is a tagged template whose interpolations are escaped unless they are `Html`
 * values already, so session text can never become markup.
 */

/** A piece of markup that is already safe to insert. */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text
  }
}

/** What an interpolation may be: text (escaped), markup, or a list of either; `null`/`undefined`/`false` add nothing. */
export type HtmlValue = Html | string | number | null | undefined | false | readonly HtmlValue[]

const ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

/** `text` with `& < > " '` escaped: safe in element content and in quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, char => ESCAPES[char]!)
}

function flatten(value: HtmlValue): string {
  if (value === null || value === undefined || value === false) return ''
  if (value instanceof Html) return value.text
  if (typeof value === 'number') return String(value)
  if (typeof value === 'string') return escapeHtml(value)
  let out = ''
  for (const part of value) out += flatten(part)
  return out
}

/** Markup from a template: every interpolated value is escaped unless it is `Html`. */
export function html(strings: TemplateStringsArray, ...values: readonly HtmlValue[]): Html {
  let out = strings[0]!
  for (let i = 0; i < values.length; i++) out += flatten(values[i]!) + strings[i + 1]!
  return new Html(out)
}

/** Markup that is trusted as it is (the package's own CSS and script). */
export function trusted(text: string): Html {
  return new Html(text)
}

/** A list of values joined into one piece of markup. */
export function join(values: readonly HtmlValue[]): Html {
  return new Html(flatten(values))
}
