/**
 * `@logbook/test-kit` — the helpers every Logbook package's tests share: a root Cordis app with its log records
 * captured, deferred promises, and probes for the error a call throws or a promise rejects with. It depends on
 * Cordis only, so the tests of every layer may use it; it is private and never loaded by an app.
 */

export { captureLogs, testApp, textsOf, type CapturedLogs, type LogCaptureOptions, type TestApp } from './app.ts'
export { deferred, drain, rejection, thrown, tick, type Deferred } from './async.ts'
export { shape } from './shape.ts'
