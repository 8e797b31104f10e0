/**
 * Token measurement (spec 03 §2.4): the price of every surface node and of the tool header, by the estimator in
 * force (`@logbook/llm`'s `tokenEstimator` service when provided, else `defaultTokenEstimator`).
 */

import type { TokenEstimator } from '@logbook/llm'
import { deriveEventMessage, type Session, type SessionEvent, type ToolSchema } from '@logbook/session'
import { logOf } from './log.ts'
import type { Measurement, NodeMeasure } from './types.ts'

/** Prices already computed for one session by one estimator; events are frozen, so a price never changes. */
interface PriceCache {
  readonly estimator: TokenEstimator
  readonly prices: Map<number, number>
}

const priceCaches = new WeakMap<Session, PriceCache>()

/** The price of one event as a node: `message()` of its derived message, 0 when it derives none. */
export function priceEvent(estimator: TokenEstimator, event: SessionEvent): number {
  const message = deriveEventMessage(event)
  return message === null ? 0 : estimator.message(message)
}

/** The price cache of `session` for `estimator` (a new estimator starts a new cache). */
export function pricesFor(session: Session, estimator: TokenEstimator): Map<number, number> {
  const cached = priceCaches.get(session)
  if (cached !== undefined && cached.estimator === estimator) return cached.prices
  const prices = new Map<number, number>()
  priceCaches.set(session, { estimator, prices })
  return prices
}

/** The price of node `seq` (an event of `events`) from `prices`, computing and caching it on first use. */
export function nodePrice(prices: Map<number, number>, estimator: TokenEstimator, events: readonly (SessionEvent | undefined)[], seq: number): number {
  let tokens = prices.get(seq)
  if (tokens === undefined) prices.set(seq, tokens = priceEvent(estimator, events[seq]!))
  return tokens
}

/**
 * Measure `session` for a request carrying `tools`: `nodes` mirror the surface in order, each priced by
 * `estimator.message` of its derived message (0 if none; a node-0 system message is priced here only);
 * `headerTokens` is `estimator.tools(tools)` (0 without tools); `totalTokens` is the sum of both parts.
 */
export function measureSession(session: Session, estimator: TokenEstimator, tools?: readonly ToolSchema[]): Measurement {
  const events = logOf(session)
  const prices = pricesFor(session, estimator)
  const nodes: NodeMeasure[] = []
  let surfaceTokens = 0
  for (const seq of session.surface.nodes) {
    const tokens = nodePrice(prices, estimator, events, seq)
    nodes.push({ seq, tokens })
    surfaceTokens += tokens
  }
  const headerTokens = tools === undefined ? 0 : estimator.tools(tools)
  return { nodes, surfaceTokens, headerTokens, totalTokens: surfaceTokens + headerTokens }
}
