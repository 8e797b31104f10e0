/**
 * The one payload validator (spec 01 §2.3, decision D3) shared by live append, every seed path and
 * `assertSessionEvent`: a table of checkers, one per core type, built from a few combinators.
 *
 * A checker returns `undefined` on success or `<relative path> <phrase>` on failure (the path is built only on
 * failure); `payloadProblem` prefixes `event "<type>": data`. Payloads reaching a checker are already lossless JSON.
 * The common payloads of a turn are first tried by direct reads (`payload-fast-path.ts`), which only ever accept.
 */
import { isObj, isSafeInt, type Obj } from './guards.ts'
import { forInCount, isPlainPayload } from './payload-fast-path.ts'
import type { CoreEventType } from './vocabulary.ts'

type Check = (v: unknown) => string | undefined

// ------------------------------------------------------------------------------------------------------------------
// Checker combinators (01 §2.3 phrases)

const anyJson: Check = () => undefined
const str: Check = (v) => (typeof v === 'string' ? undefined : ' must be a string')
const nonEmpty: Check = (v) => (typeof v === 'string' && v.length > 0 ? undefined : ' must be a non-empty string')
const bool: Check = (v) => (typeof v === 'boolean' ? undefined : ' must be a boolean')
const isTrue: Check = (v) => (v === true ? undefined : ' must be true')
const posInt: Check = (v) => (isSafeInt(v) && v > 0 ? undefined : ' must be a positive safe integer')
const nonNegInt: Check = (v) => (isSafeInt(v) && v >= 0 ? undefined : ' must be a non-negative safe integer')
const finite: Check = (v) => (typeof v === 'number' && Number.isFinite(v) ? undefined : ' must be a finite number')
const anyObject: Check = (v) => (isObj(v) ? undefined : ' must be an object')
const HEX64 = /^[0-9a-f]{64}$/
const hex64: Check = (v) => (typeof v === 'string' && HEX64.test(v) ? undefined : ' must be 64 lowercase hex digits')

function oneOf(values: readonly string[]): Check {
  const phrase = ` must be one of ${values.map((x) => `"${x}"`).join(', ')}`
  return (v) => (typeof v === 'string' && values.includes(v) ? undefined : phrase)
}

function arrayOf(element: Check, nonEmptyArray = false): Check {
  const phrase = nonEmptyArray ? ' must be a non-empty array' : ' must be an array'
  return (v) => {
    if (!Array.isArray(v) || (nonEmptyArray && v.length === 0)) return phrase
    for (let i = 0; i < v.length; i++) {
      const p = element(v[i])
      if (p !== undefined) return `[${i}]${p}`
    }
    return undefined
  }
}

interface Field { readonly key: string; readonly check: Check; readonly optional: boolean }
/** A field spec: `['key', check]` is required, `['key?', check]` optional. */
type FieldSpec = readonly [string, Check]

interface ObjOptions { readonly open?: boolean; readonly after?: (o: Obj) => string | undefined }

/** Fields in declaration order, each completely; then `after`; then unknown keys in own-key order (unless open). */
function obj(specs: readonly FieldSpec[], options: ObjOptions = {}): Check {
  const fields: Field[] = specs.map(([k, check]) =>
    k.endsWith('?') ? { key: k.slice(0, -1), check, optional: true } : { key: k, check, optional: false })
  const known = new Set(fields.map((f) => f.key))
  const open = options.open === true
  const after = options.after
  return (v) => {
    if (!isObj(v)) return ' must be an object'
    let present = 0
    for (let i = 0; i < fields.length; i++) {
      const f = fields[i] as Field
      const x = v[f.key]
      if (x === undefined) {
        if (!f.optional) return `.${f.key} is required`
        continue
      }
      present++
      const p = f.check(x)
      if (p !== undefined) return `.${f.key}${p}`
    }
    if (after !== undefined) {
      const p = after(v)
      if (p !== undefined) return p
    }
    // for-in counts without allocating; only a mismatch lists the own keys to name the first unknown one.
    if (!open && forInCount(v) !== present) {
      for (const k of Object.keys(v)) if (!known.has(k)) return `.${k} is not allowed`
    }
    return undefined
  }
}

/**
 * A union on `key`: `discCheck` validates the discriminant, then the variant for its value runs (a variant's own
 * check of `key` is skipped by using `anyJson`). An unlisted discriminant is accepted as is (open unions).
 */
function union(key: string, discCheck: Check, variants: Record<string, Check>): Check {
  const table = new Map(Object.entries(variants))
  return (v) => {
    if (!isObj(v)) return ' must be an object'
    const d = v[key]
    if (d === undefined) return `.${key} is required`
    const p = discCheck(d)
    if (p !== undefined) return `.${key}${p}`
    return table.get(d as string)?.(v)
  }
}

// ------------------------------------------------------------------------------------------------------------------
// Blocks, messages, records (01 §1.2–§1.3 declaration order)

const textBlock = obj([['type', anyJson], ['text', str]])
const imageRef = obj([
  ['uri', nonEmpty], ['mediaType', oneOf(['image/png', 'image/jpeg', 'image/gif', 'image/webp'])],
  ['width?', posInt], ['height?', posInt], ['bytes?', nonNegInt], ['sha256?', hex64], ['name?', str],
])
const imageBlock = obj([['type', anyJson], ['image', imageRef]])
const toolCallBlock = obj([['type', anyJson], ['id', nonEmpty], ['name', nonEmpty], ['arguments', str]])
const blockOf = (types: readonly string[]): Check => {
  const all: Record<string, Check> = {
    text: textBlock, reasoning: textBlock, refusal: textBlock, image: imageBlock, 'tool-call': toolCallBlock,
  }
  return union('type', oneOf(types), Object.fromEntries(types.map((t) => [t, all[t] as Check])))
}
const toolResultBlock = obj([
  ['type', anyJson], ['toolCallId', nonEmpty], ['content', arrayOf(blockOf(['text', 'image']))], ['isError?', bool],
])

const pluginSource = obj([['kind', anyJson], ['plugin', nonEmpty]])
const kindOnly = obj([['kind', anyJson]])
const systemSource = union('kind', oneOf(['system', 'plugin']), { system: kindOnly, plugin: pluginSource })
const userKind: Check = (v) => {
  if (typeof v !== 'string' || v.length === 0) return ' must be a non-empty string'
  return v === 'system' || v === 'model' || v === 'tool' ? ` must not be "${v}"` : undefined
}
const userSource = union('kind', userKind, { user: kindOnly, plugin: pluginSource })
const modelSource = obj([['kind', oneOf(['model'])], ['provider', nonEmpty], ['model', nonEmpty], ['replayState?', anyJson]])
const toolSource = obj([['kind', oneOf(['tool'])], ['callId', nonEmpty]])

const systemMessage = obj([
  ['id', nonEmpty], ['role', oneOf(['system'])], ['content', arrayOf(blockOf(['text']), true)], ['source', systemSource],
])
const userMessage = obj([
  ['id', nonEmpty], ['role', oneOf(['user'])], ['content', arrayOf(blockOf(['text', 'image']), true)], ['source', userSource],
])
const ASSISTANT_BLOCKS = ['text', 'reasoning', 'refusal', 'tool-call'] as const
const assistantMessage = obj([
  ['id', nonEmpty], ['role', oneOf(['assistant'])], ['content', arrayOf(blockOf(ASSISTANT_BLOCKS))], ['source', modelSource],
])
const oneToolResult: Check = (v) => {
  if (!Array.isArray(v)) return ' must be an array'
  const b: unknown = v[0]
  if (v.length !== 1 || !isObj(b) || b.type !== 'tool-result') return ' must hold exactly one tool-result block'
  const p = toolResultBlock(b)
  return p === undefined ? undefined : `[0]${p}`
}
const toolResultMessage = obj(
  [['id', nonEmpty], ['role', oneOf(['user'])], ['content', oneToolResult], ['source', toolSource]],
  {
    after: (m) => ((m.content as Obj[])[0] as Obj).toolCallId === (m.source as Obj).callId
      ? undefined
      : '.content[0].toolCallId must equal data.message.source.callId',
  },
)

const usage = obj([
  ['inputTokens', nonNegInt], ['outputTokens', nonNegInt], ['cacheReadTokens?', nonNegInt],
  ['cacheWriteTokens?', nonNegInt], ['reasoningTokens?', nonNegInt],
])
const llmFailure = obj([
  ['message', str], ['code', nonEmpty], ['status?', nonNegInt], ['retryAfterMs?', nonNegInt], ['requestId?', str],
])

const reason = union('kind', nonEmpty, {
  completed: kindOnly, blocked: kindOnly, 'max-tokens': kindOnly, 'max-steps': kindOnly, interrupted: kindOnly,
  forked: kindOnly,
  aborted: obj([['kind', anyJson], ['reason', obj([['kind', oneOf(['user', 'parent', 'disposed'])]])]]),
  error: obj([['kind', anyJson], ['error', llmFailure]]),
})

const open = { open: true } as const
const chunk = union('type', nonEmpty, {
  'block-start': obj([['type', anyJson], ['index', nonNegInt], ['blockType', oneOf(ASSISTANT_BLOCKS)]], open),
  'text-delta': obj([['type', anyJson], ['index', nonNegInt], ['text', str]], open),
  'reasoning-delta': obj([['type', anyJson], ['index', nonNegInt], ['text', str]], open),
  'refusal-delta': obj([['type', anyJson], ['index', nonNegInt], ['text', str]], open),
  'tool-call-delta': obj([['type', anyJson], ['index', nonNegInt], ['id', str], ['name?', str], ['argumentsDelta', str]], open),
  'block-end': obj([['type', anyJson], ['index', nonNegInt], ['block', blockOf(ASSISTANT_BLOCKS)]], open),
  usage: obj([['type', anyJson], ['usage', usage]], open),
  finish: obj([
    ['type', anyJson], ['reason', oneOf(['stop', 'tool-calls', 'max-tokens', 'error', 'aborted'])], ['error?', llmFailure],
    ['rawFinishReason?', nonEmpty],
  ], open),
})

const requestConfig = obj([
  ['provider', nonEmpty], ['model', nonEmpty], ['reasoningEffort?', nonEmpty], ['maxTokens?', posInt], ['temperature?', finite],
], open)
const toolSchema = obj([['name', nonEmpty], ['description', str], ['parameters', anyObject]])

// ------------------------------------------------------------------------------------------------------------------
// Payloads (01 §1.4)

const turnStep: FieldSpec[] = [['turn', posInt], ['step', posInt]]
const PAYLOADS: { readonly [K in CoreEventType]: Check } = {
  'turn/start': obj([['turn', posInt]]),
  'turn/end': obj([['turn', posInt], ['reason', reason]]),
  'step/start': obj(turnStep),
  'step/end': obj(turnStep),
  'system/message': systemMessage,
  'user/message': userMessage,
  'assistant/chunk': obj([...turnStep, ['chunk', chunk]]),
  'assistant/message': obj(
    [...turnStep, ['message', assistantMessage], ['usage?', usage], ['interrupted?', isTrue], ['usageMissing?', isTrue],
      ['rawFinishReason?', nonEmpty]],
    { after: (d) => (d.usage !== undefined && d.usageMissing !== undefined ? '.usageMissing is not allowed with data.usage' : undefined) },
  ),
  'tool/call': obj([...turnStep, ['callId', nonEmpty], ['name', nonEmpty], ['arguments', str]]),
  'tool/result': obj([
    ...turnStep, ['message', toolResultMessage], ['error?', obj([['name', nonEmpty], ['code', nonEmpty]])], ['meta?', anyJson],
  ]),
  'todo/write': obj([['todos', arrayOf(obj([['content', str], ['status', oneOf(['pending', 'in_progress', 'completed'])]]))]]),
  'request/header': obj([
    ['header', obj([['config', requestConfig], ['tools?', arrayOf(toolSchema)]])],
    ['reason', oneOf(['initial', 'resume', 'change'])],
  ]),
  'request/context': obj([['provider', nonEmpty], ['model', nonEmpty], ['contextWindow?', posInt]]),
  'session/end-seed': obj([['inherited?', isTrue]]),
}
const payloadTable = new Map<string, Check>(Object.entries(PAYLOADS))

/**
 * The full 01 §2.3 message for an invalid payload (`event "user/message": data.id is required`), or `undefined`.
 * Plugin types accept any lossless JSON. `data` must already be lossless JSON.
 */
export function payloadProblem(type: string, data: unknown): string | undefined {
  return isPlainPayload(type, data) ? undefined : tablePayloadProblem(type, data)
}

/** @internal `payloadProblem` by the table alone (no fast path): the reference the fast paths are tested against. */
export function tablePayloadProblem(type: string, data: unknown): string | undefined {
  const check = payloadTable.get(type)
  if (check === undefined) return undefined
  const p = check(data)
  return p === undefined ? undefined : `event "${type}": data${p}`
}

