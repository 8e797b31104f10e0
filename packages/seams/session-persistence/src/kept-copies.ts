/**
 * Names of the copies durable backends keep beside a stored artifact before maintenance changes it (02 §4.7): the
 * artifact's path, a UTC time stamp and why the copy exists — `<path>.<YYYYMMDDTHHMMSSZ>[-n].<why>` — so copies
 * sort by time and never overwrite one another.
 */

/** `YYYYMMDDTHHMMSSZ` of `now` (UTC; no character a file name cannot hold). */
export function fileStamp(now: Date): string {
  return now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')
}

/**
 * Call `create(name)` with `<path>.<stamp>.<why>`, then `…<stamp>-2.<why>`, `-3`… while it fails with `EEXIST`;
 * returns the name it created. @throws what `create` throws otherwise.
 */
export function createKeptCopy(path: string, why: string, create: (name: string) => void | Promise<void>, now = new Date()): Promise<string> {
  const base = `${path}.${fileStamp(now)}`
  const attempt = async (n: number): Promise<string> => {
    const name = `${base}${n === 1 ? '' : `-${n}`}.${why}`
    try {
      await create(name)
      return name
    } catch (error) {
      if ((error as { code?: unknown } | null)?.code !== 'EEXIST') throw error
      return attempt(n + 1)
    }
  }
  return attempt(1)
}
