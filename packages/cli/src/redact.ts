/**
 * Redaction of exports: every string value of the stored session — each event's `data` and the header's text
 * fields (not its ids) — with each match of the built-in secret patterns and of the user's `--redact` patterns
 * replaced by `[redacted]`. It runs once, on the session as read, before any export format sees it, so every format
 * is redacted the same way; keys, event types and ids stay as they are, so a redacted `jsonl` export still imports.
 */

import type { SessionEvent, SessionHeader } from '@logbook/session'
import type { StoredSession } from './commands/stored.ts'
import { usageError } from './errors.ts'

/** What a match becomes. */
export const REDACTED = '[redacted]'

/** The built-in secret patterns, each with the family it catches. */
export const BUILT_IN_SECRETS: readonly { readonly name: string; readonly pattern: RegExp }[] = Object.freeze([
  { name: 'PEM private key', pattern: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY-----/g },
  { name: 'API key (sk-…)', pattern: /\bsk-[A-Za-z0-9_-]{20,}/g },
  { name: 'AWS access key id', pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g },
  { name: 'GitHub token', pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})/g },
  { name: 'Slack token', pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g },
  { name: 'Google API key', pattern: /\bAIza[0-9A-Za-z_-]{35}/g },
  { name: 'JSON web token', pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g },
  // The token after "Bearer", so the word itself stays readable.
  { name: 'bearer token', pattern: /(?<=\b[Bb]earer\s+)[A-Za-z0-9._~+/=-]{16,}/g },
])

/** The header fields that are ids: never redacted, so the export still names and links its sessions. */
const HEADER_IDS = new Set(['id', 'parentSession'])

/**
 * The patterns of one export: the built-in set unless `builtIn` is false, then each `--redact` source.
 * @throws CliError `USAGE` naming a source that is not a valid regular expression, or one that matches the empty string.
 */
export function redactionPatterns(sources: readonly string[], builtIn: boolean): RegExp[] {
  const patterns = builtIn ? BUILT_IN_SECRETS.map(secret => secret.pattern) : []
  for (const source of sources) {
    let pattern: RegExp
    try {
      pattern = new RegExp(source, 'g')
    } catch (error) {
      throw usageError(`invalid --redact pattern ${JSON.stringify(source)}: ${(error as Error).message}`)
    }
    if (new RegExp(source).test('')) throw usageError(`--redact pattern ${JSON.stringify(source)} matches the empty string`)
    patterns.push(pattern)
  }
  return patterns
}

/** `stored` with every match of `patterns` replaced, and how many replacements were made. */
export function redactStored(stored: StoredSession, patterns: readonly RegExp[]): { stored: StoredSession; replacements: number } {
  let replacements = 0
  const text = (value: string): string => {
    let out = value
    for (const pattern of patterns) {
      out = out.replace(pattern, () => {
        replacements++
        return REDACTED
      })
    }
    return out
  }
  const walk = (value: unknown): unknown => {
    if (typeof value === 'string') return text(value)
    if (Array.isArray(value)) return value.map(walk)
    if (value === null || typeof value !== 'object') return value
    const copy: Record<string, unknown> = {}
    for (const [key, inner] of Object.entries(value)) copy[key] = walk(inner)
    return copy
  }
  if (patterns.length === 0) return { stored, replacements: 0 }
  const header: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(stored.header)) header[key] = HEADER_IDS.has(key) ? value : walk(value)
  const events = stored.events.map(event => ({ ...event, data: walk(event.data) }) as SessionEvent)
  return { stored: { header: header as unknown as SessionHeader, events }, replacements }
}
