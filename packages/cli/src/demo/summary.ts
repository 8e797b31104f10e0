/**
 * The demo's closing summary of a session (spec 03 §6.2 section 6): title, todos and stats from the projection
 * snapshot — counts only, no durations, so reruns print the same lines.
 */

import type { TodoItem } from '@logbook/session'

const MARKS: Readonly<Record<TodoItem['status'], string>> = { pending: '[ ]', in_progress: '[~]', completed: '[x]' }

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`
}

/** The lines describing one session's projection values. */
export function summaryLines(id: string, values: Readonly<Record<string, unknown>>): string[] {
  const lines = [`${id}`]
  const title = values.title
  lines.push(`  title: ${typeof title === 'string' ? title : '-'}`)
  const todos = Array.isArray(values.todos) ? (values.todos as TodoItem[]) : []
  if (todos.length === 0) lines.push('  todos: -')
  else {
    lines.push('  todos:')
    for (const todo of todos) lines.push(`    ${MARKS[todo.status] ?? '[?]'} ${todo.content}`)
  }
  const stats = (values.stats ?? {}) as Record<string, number>
  const n = (key: string): number => (typeof stats[key] === 'number' ? stats[key] : 0)
  lines.push(`  stats: ${plural(n('turns'), 'turn')}, ${plural(n('steps'), 'step')}, ${plural(n('toolCalls'), 'tool call')}`
    + ` (${n('toolErrors')} failed), ${plural(n('compactions'), 'compaction')}; ${n('inputTokens')} input / ${n('outputTokens')} output tokens`)
  return lines
}
