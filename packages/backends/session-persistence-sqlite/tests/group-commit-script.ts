/** The deterministic turns the group-commit crash test's child writes and its parent checks (P-158). */

/** Live sessions the child writes at once. */
export const GROUP_SESSIONS = 8

/** The appends of round `round` (1-based) of session `index`: a turn of 1–5 todo writes naming both. */
export function groupTurn(index: number, round: number): { type: string; data: unknown }[] {
  const todos = 1 + ((index + round) % 5)
  const events: { type: string; data: unknown }[] = [{ type: 'turn/start', data: { turn: round } }]
  for (let k = 0; k < todos; k++) {
    events.push({ type: 'todo/write', data: { todos: [{ content: `g-${index} round ${round} item ${k}`, status: 'pending' }] } })
  }
  events.push({ type: 'turn/end', data: { turn: round, reason: { kind: 'completed' } } })
  return events
}
