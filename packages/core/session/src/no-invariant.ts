/**
 * The shared builder of "no runtime invariant" companions (spec README, "Rules across chapters"): a package whose
 * events carry no runtime relation still exports `./invariant`, built here instead of copying boilerplate.
 */

import type { Context } from '@deepseek-ai/cordis'

/** A Cordis plugin in named-export form whose `apply` registers nothing. */
export interface NoRuntimeInvariant {
  readonly name: string
  readonly apply: (ctx: Context) => void
}

/**
 * Build the companion plugin of a package that has no runtime relation to check; loading it registers nothing.
 * Use it as `export const { name, apply } = noRuntimeInvariant('<package>-invariant')` in a module whose comment
 * begins `No runtime invariant:` followed by one sentence saying why.
 * @throws TypeError when `name` is not a non-empty string.
 */
export function noRuntimeInvariant(name: string): NoRuntimeInvariant {
  if (typeof name !== 'string' || name === '') {
    throw new TypeError(`invariant companion name must be a non-empty string, got ${String(name)}`)
  }
  // Registering nothing is the point: the companion exists so that every package has the same `./invariant` shape.
  const apply = (_ctx: Context): void => {}
  return Object.freeze({ name, apply })
}
