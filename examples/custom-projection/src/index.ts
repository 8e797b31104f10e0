/**
 * A first projection plugin: how many times each tool was called in a session. Clients read it as
 * `ctx.sessionProjections.snapshot(S).values['acme/tool-histogram']`, e.g. `{ read_note: 2, deploy: 1 }`.
 */
import type { Context } from '@deepseek-ai/cordis'
import Schema from '@deepseek-ai/schemastery'
import type {} from '@logbook/session-projection'

/** Calls per tool name; it is both the state and the view. */
export type ToolHistogram = { readonly [tool: string]: number }

declare module '@logbook/session-projection' {
  interface ProjectionStates {
    'acme/tool-histogram': ToolHistogram
  }
}

export const name = 'tool-histogram'
export const inject = ['sessionProjections']

/** Register the unit; unloading this plugin removes it. */
export function apply(ctx: Context): void {
  ctx.sessionProjections.register({
    key: 'acme/tool-histogram',
    stateVersion: 1,
    stateSchema: Schema.dict(Schema.natural()),
    init: () => ({}),
    // Only tool calls are offered to `apply`; unhandled events would return the same state object anyway.
    eventTypes: ['tool/call'],
    apply: (s, e) => (e.type !== 'tool/call' ? s : { ...s, [e.data.name]: (s[e.data.name] ?? 0) + 1 }),
    view: s => s,
  })
}
