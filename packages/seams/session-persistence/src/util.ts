/** Message and exhaustiveness helpers: `describe` quotes strings for messages, `assertNever` guards closed unions. */

/** A printable summary of an unknown value for messages (strings quoted); the exhaustiveness guard. */
export { assertNever, describeValue as describe } from '@logbook/session'
