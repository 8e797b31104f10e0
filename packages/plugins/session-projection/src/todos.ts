/** The built-in `todos` unit (03 §1.5): the list carried by the last `todo/write`; turns do not reset it. */
import type { TodoItem } from '@logbook/session'
import { TodosStateSchema } from './schemas.ts'
import type { ProjectionDefinition, TodosState } from './types.ts'

/** The built-in `todos` unit (`stateVersion` 1); its view is the list, or null before any `todo/write`. */
export const todosProjection: ProjectionDefinition<TodosState, readonly TodoItem[] | null, 'todos'> = {
  key: 'todos',
  stateVersion: 1,
  stateSchema: TodosStateSchema,
  init: () => ({ todos: null }),
  // Whole-value event (03 §1.3 rule 7): each write carries the complete list, so the last one wins.
  apply: (s, event) => event.type === 'todo/write' ? { todos: event.data.todos } : s,
  eventTypes: ['todo/write'],
  view: s => s.todos,
}
