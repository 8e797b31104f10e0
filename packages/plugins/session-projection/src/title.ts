/**
 * The built-in `title` unit and the `session/title` event (03 §1.5). An explicit title wins; until one is set, the
 * first appended non-blank prompt of the user gives a fallback, whitespace collapsed and clipped to 60 code points.
 */
import { isAppendSurfaceEvent, printValue, type Session, type SessionEvent } from '@logbook/session'
import { TitleStateSchema } from './schemas.ts'
import type { ProjectionDefinition, TitleState } from './types.ts'

declare module '@logbook/session' {
  interface SessionEventMap {
    /** A log-only, ignorable title record; a blank title clears the explicit title. */
    'session/title': { readonly title: string }
  }
}

/** The event type this package registers and `appendTitle` appends. */
export const SESSION_TITLE_EVENT = 'session/title'

/** Fallback titles longer than this many code points are clipped. */
const MAX_FALLBACK = 60

/** The text blocks joined by a space, whitespace collapsed, trimmed, clipped to 59 code points + "…" past 60. */
function fallbackOf(event: SessionEvent<'user/message'>): string | null {
  const texts: string[] = []
  for (const block of event.data.content) if (block.type === 'text') texts.push(block.text)
  const text = texts.join(' ').replace(/\s+/gu, ' ').trim()
  if (text === '') return null
  const points = Array.from(text)
  return points.length > MAX_FALLBACK ? `${points.slice(0, MAX_FALLBACK - 1).join('')}…` : text
}

function applyTitle(s: TitleState, event: SessionEvent): TitleState {
  if (event.type === 'session/title') {
    const title: unknown = event.data.title
    if (typeof title !== 'string') return s // a malformed stored record is ignored, like any unknown shape
    const explicit = title.trim() === '' ? null : title.trim()
    return explicit === s.explicit ? s : { ...s, explicit }
  }
  if (event.type !== 'user/message' || s.fallback !== null) return s
  if (event.data.source.kind !== 'user' || !isAppendSurfaceEvent(event)) return s
  const fallback = fallbackOf(event)
  return fallback === null ? s : { ...s, fallback }
}

/** The built-in `title` unit (`stateVersion` 1); view = `explicit ?? fallback ?? null`. */
export const titleProjection: ProjectionDefinition<TitleState, string | null, 'title'> = {
  key: 'title',
  stateVersion: 1,
  stateSchema: TitleStateSchema,
  init: () => ({ explicit: null, fallback: null }),
  apply: applyTitle,
  eventTypes: [SESSION_TITLE_EVENT, 'user/message'],
  view: s => s.explicit ?? s.fallback ?? null,
}

/**
 * Append `session/title { title }` (log-only, `ignorable: true`) to `session`; a blank title clears the explicit
 * title, so the view falls back to the first prompt. Returns the committed event.
 * @throws TypeError when `title` is not a string; the session's append errors unchanged.
 */
export function appendTitle(session: Session, title: string): SessionEvent<'session/title'> {
  if (typeof title !== 'string') throw new TypeError(`title must be a string, got ${printValue(title)}`)
  return session.append('session/title', { title }, { ignorable: true })
}
