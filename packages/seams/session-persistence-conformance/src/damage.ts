/**
 * Helpers for backends' damage kits (spec 02 §9): edits every backend makes the same way, so a case means the same
 * damage on each.
 */

const TIME_KEYS = ['"time":', '"time0":'] as const

/**
 * `text` (a record's JSON) with the last digit of its first `time` (or packed `time0`) value changed: the record keeps
 * its JSON shape and stays a valid event, so only its checksum can tell (`corruptRecord(…, 'checksum')`).
 * @throws Error when the text holds no such number.
 */
export function changeOneDigit(text: string): string {
  for (const key of TIME_KEYS) {
    const at = text.indexOf(key)
    if (at < 0) continue
    let end = at + key.length
    if (!/[0-9]/.test(text[end] ?? '')) continue
    while (/[0-9]/.test(text[end + 1] ?? '')) end++
    const changed = text[end] === '9' ? '8' : String(Number(text[end]) + 1)
    return text.slice(0, end) + changed + text.slice(end + 1)
  }
  throw new Error('damage: the record holds no time to change')
}
