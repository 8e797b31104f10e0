/** A session log read as a list of event type names, for asserting what a run appended. */

/**
 * The type names of `events` from index `from` on, each run of consecutive `assistant/chunk` events collapsed to one
 * `chunks` (how many deltas a model stream was split into is not what such a test checks).
 */
export function shape(events: readonly { readonly type: string }[], from = 0): string[] {
  const out: string[] = []
  for (const event of events.slice(from)) {
    const name = event.type === 'assistant/chunk' ? 'chunks' : event.type
    if (name === 'chunks' && out.at(-1) === 'chunks') continue
    out.push(name)
  }
  return out
}
