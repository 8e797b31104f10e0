/**
 * Plugins merge their log-only types into `SessionEventMap` (01 §1.4, §2.1). Other packages typecheck this package's
 * sources with their augmentations applied, so the core must compile under one: this file adds one, and
 * `tsc -p tsconfig.json` checks every source file with it in force.
 */
import { describe, expect, it } from 'vitest'
import { CORE_SESSION_EVENT_TYPES, Session, type SessionEvent } from '../src/index.ts'
import { expectError, sid } from './harness.ts'

declare module '../src/types.ts' {
  interface SessionEventMap {
    'plugin/typed': { readonly count: number }
  }
}

describe('SessionEventMap augmentation', () => {
  it('a merged plugin type appends with its typed payload, is log-only and takes any lossless JSON', () => {
    const s = Session.create(sid('s'))
    const event: SessionEvent<'plugin/typed'> = s.append('plugin/typed', { count: 2 }, { ignorable: true })
    expect(event).toEqual({ type: 'plugin/typed', seq: 0, time: event.time, data: { count: 2 }, ignorable: true })
    expect(CORE_SESSION_EVENT_TYPES).not.toContain('plugin/typed')
    expectError(() => s.append('plugin/typed', { count: 1 }, { surfaceOp: 'append' } as never), 'INVALID_SURFACE',
      'event "plugin/typed" is not a surface type and cannot carry surfaceOp')
  })
})
