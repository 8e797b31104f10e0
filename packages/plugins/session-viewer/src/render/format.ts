/**
 * Small formatting rules shared by the HTML and Markdown renderers: numbers, times, token usage, turn end reasons.
 */

import type { TokenUsage, TurnEndReason } from '@logbook/session'

/** `1234567` → `1,234,567` (by hand: `toLocaleString` costs microseconds per call, and a page formats thousands). */
export function count(value: number): string {
  const digits = String(Math.trunc(Math.abs(value)))
  const grouped = digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',')
  return `${value < 0 ? '-' : ''}${grouped}`
}

/** Epoch milliseconds as `2026-12-01 10:59:12Z` (UTC, so every reader sees the same text). */
export function timeText(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')}Z`
}

/** `in 1,200 · out 340 · cache 1,000 · reasoning 20` (zero extras left out); `no usage` when nothing was recorded. */
export function usageText(usage: TokenUsage | undefined): string {
  if (usage === undefined) return 'no usage'
  const parts = [`in ${count(usage.inputTokens)}`, `out ${count(usage.outputTokens)}`]
  if ((usage.cacheReadTokens ?? 0) > 0) parts.push(`cache read ${count(usage.cacheReadTokens!)}`)
  if ((usage.cacheWriteTokens ?? 0) > 0) parts.push(`cache write ${count(usage.cacheWriteTokens!)}`)
  if ((usage.reasoningTokens ?? 0) > 0) parts.push(`reasoning ${count(usage.reasoningTokens!)}`)
  return parts.join(' · ')
}

/** How a turn ended, for a badge: its kind, and a note for the kinds Logbook writes itself or that carry a cause. */
export function reasonText(reason: TurnEndReason): { kind: string; text: string } {
  switch (reason.kind) {
    case 'interrupted':
      return { kind: 'interrupted', text: 'interrupted — closed on resume: its writer stopped before the turn ended' }
    case 'forked':
      return { kind: 'forked', text: 'forked — closed at the fork cut: the parent went on after it' }
    case 'aborted':
      return { kind: 'aborted', text: `aborted (${(reason as { reason: { kind: string } }).reason.kind})` }
    case 'error': {
      const { error } = reason as { error: { code: string; message: string } }
      return { kind: 'error', text: `error ${error.code}: ${error.message}` }
    }
    default:
      return { kind: reason.kind, text: reason.kind }
  }
}
