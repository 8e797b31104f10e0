/** No runtime invariant: this private package holds test helpers and loads no plugin at runtime. */

/** The companion's plugin name. */
export const name = 'test-kit-invariant'

/** Checks nothing: the test kit owns no event and no service. */
export function apply(): void {}
