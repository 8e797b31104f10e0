/**
 * The JSON-schema subset the seam enforces on tool arguments (spec 03 §4 step 1): `type`, `properties`, `required`,
 * `enum`, `items` and `additionalProperties: false`. Every other keyword is an annotation. Violations name the
 * offending path, starting at `arguments` (`arguments.files[2].path`).
 */

import { jsonEqual, type JsonValue } from '@logbook/session'

type JsonObject = { readonly [key: string]: JsonValue }

const TYPES = ['object', 'array', 'string', 'number', 'integer', 'boolean', 'null'] as const
type JsonType = (typeof TYPES)[number]

const PHRASE: Readonly<Record<JsonType, string>> = {
  object: 'an object', array: 'an array', string: 'a string', number: 'a number', integer: 'an integer',
  boolean: 'a boolean', null: 'null',
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** `base.key`, or `base["key"]` when the key is not an identifier. */
export function childPath(base: string, key: string): string {
  return IDENTIFIER.test(key) ? `${base}.${key}` : `${base}[${JSON.stringify(key)}]`
}

function typesOf(schema: JsonObject): readonly JsonType[] | undefined {
  const type = schema.type
  if (type === undefined) return undefined
  return (typeof type === 'string' ? [type] : type) as readonly JsonType[]
}

/**
 * The first problem with the enforced keywords of `schema` (their shapes, recursively), or `undefined`. Used at
 * registration so execution can trust the schema.
 */
export function schemaProblem(schema: JsonValue, path: string): string | undefined {
  if (!isObject(schema)) return `${path} must be an object`
  const type = schema.type
  if (type !== undefined) {
    const list = typeof type === 'string' ? [type] : type
    if (!Array.isArray(list) || list.length === 0 || !list.every(t => (TYPES as readonly unknown[]).includes(t))) {
      return `${path}.type must be one of ${TYPES.map(t => JSON.stringify(t)).join(', ')} or a non-empty array of them`
    }
  }
  const required = schema.required
  if (required !== undefined && (!Array.isArray(required) || !required.every(k => typeof k === 'string'))) {
    return `${path}.required must be an array of strings`
  }
  if (schema.enum !== undefined && !Array.isArray(schema.enum)) return `${path}.enum must be an array`
  const properties = schema.properties
  if (properties !== undefined) {
    if (!isObject(properties)) return `${path}.properties must be an object`
    for (const [key, sub] of Object.entries(properties)) {
      const problem = schemaProblem(sub, childPath(`${path}.properties`, key))
      if (problem !== undefined) return problem
    }
  }
  // `items` in its tuple (array) form is an annotation; only a single schema is enforced.
  if (schema.items !== undefined && !Array.isArray(schema.items)) return schemaProblem(schema.items, `${path}.items`)
  return undefined
}

function hasType(value: JsonValue, type: JsonType): boolean {
  switch (type) {
    case 'object': return isObject(value)
    case 'array': return Array.isArray(value)
    case 'string': return typeof value === 'string'
    case 'number': return typeof value === 'number' && Number.isFinite(value)
    case 'integer': return typeof value === 'number' && Number.isInteger(value)
    case 'boolean': return typeof value === 'boolean'
    case 'null': return value === null
  }
}

/**
 * The first violation of `schema` by `value`, as `<path> <phrase>`, or `undefined`. Checks run in this order:
 * type, enum, then for objects required (in `required` order), properties (schema key order) and
 * `additionalProperties: false` (own-key order), for arrays each item.
 */
export function argumentViolation(schema: JsonValue, value: JsonValue, path = 'arguments'): string | undefined {
  if (!isObject(schema)) return undefined
  const types = typesOf(schema)
  if (types !== undefined && !types.some(type => hasType(value, type))) {
    return `${path} must be ${types.map(type => PHRASE[type]).join(' or ')}`
  }
  const allowed = schema.enum
  if (Array.isArray(allowed) && !allowed.some(option => jsonEqual(option, value))) {
    return `${path} must be one of ${allowed.map(option => JSON.stringify(option)).join(', ')}`
  }
  if (isObject(value)) return objectViolation(schema, value, path)
  if (Array.isArray(value) && schema.items !== undefined && !Array.isArray(schema.items)) {
    for (let i = 0; i < value.length; i++) {
      const problem = argumentViolation(schema.items, value[i]!, `${path}[${i}]`)
      if (problem !== undefined) return problem
    }
  }
  return undefined
}

function objectViolation(schema: JsonObject, value: JsonObject, path: string): string | undefined {
  const required = Array.isArray(schema.required) ? schema.required : []
  for (const key of required) {
    if (typeof key === 'string' && !Object.hasOwn(value, key)) return `${childPath(path, key)} is required`
  }
  const properties = isObject(schema.properties) ? schema.properties : {}
  for (const [key, sub] of Object.entries(properties)) {
    if (!Object.hasOwn(value, key)) continue
    const problem = argumentViolation(sub, value[key]!, childPath(path, key))
    if (problem !== undefined) return problem
  }
  if (schema.additionalProperties === false) {
    for (const key of Object.keys(value)) {
      if (!Object.hasOwn(properties, key)) return `${childPath(path, key)} is not allowed`
    }
  }
  return undefined
}
