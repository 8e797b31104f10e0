/**
 * `importClaudeCode`: a Claude Code transcript (`~/.claude/projects/<encoded-cwd>/<uuid>.jsonl`, or a subagent's
 * `agent-<id>.jsonl`) as Logbook sessions. Records form a tree by `uuid`/`parentUuid` (a `compact_boundary` starts a
 * new root that continues its `logicalParentUuid`). The branch ending at the leaf a `summary` names — else at the
 * newest leaf — is the session; every other branch is a fork of it at the branch point (`<id>-branch-<n>`);
 * `isSidechain` records are subagent conversations, each a child session (`<id>-agent-<agentId>`).
 */

import { assembleSessions, type Conversation, type SubagentConversation } from './assemble.ts'
import { claudeItems, type ClaudeRecord } from './claude-code-items.ts'
import { ReportBuilder } from './report.ts'
import { absolutePath, nonEmpty, objectOf, parseJsonLines, readInput, stringOf, timeOf, type SourceText } from './source.ts'
import { Forest, newestLeaf, type TreeNode } from './tree.ts'
import type { ImportInput, ImportOptions, ImportResult } from './types.ts'

const TREE_TYPES: ReadonlySet<string> = new Set(['user', 'assistant', 'system'])
/** Record types Claude Code writes that hold nothing model-visible. */
const KNOWN_OTHER_TYPES: ReadonlySet<string> = new Set(['file-history-snapshot', 'queue-operation'])

interface Title {
  readonly leaf: string
  readonly summary: string
}

interface Scan {
  readonly main: TreeNode<ClaudeRecord>[]
  readonly side: TreeNode<ClaudeRecord>[]
  /** The `summary` records, file order: a title and the record it was written at. */
  readonly titles: readonly Title[]
  readonly sessionId?: string
  readonly cwd?: string
  readonly createdAt?: number
}

function scan(source: SourceText, report: ReportBuilder): Scan {
  const main: TreeNode<ClaudeRecord>[] = []
  const side: TreeNode<ClaudeRecord>[] = []
  const titles: Title[] = []
  const logical = new Map<TreeNode<ClaudeRecord>, string>()
  let sessionId: string | undefined
  let cwd: string | undefined
  let createdAt: number | undefined
  for (const { line, value } of source.lines) {
    const raw = objectOf(value)
    const type = stringOf(raw?.type) ?? '(no type)'
    if (raw === undefined) {
      report.skip('not a JSON object', String(line))
      continue
    }
    if (type === 'summary') {
      const leaf = nonEmpty(raw.leafUuid)
      const summary = stringOf(raw.summary)
      if (leaf !== undefined && summary !== undefined) titles.push({ leaf, summary })
      continue
    }
    const uuid = nonEmpty(raw.uuid)
    if (!TREE_TYPES.has(type) || uuid === undefined) {
      if (KNOWN_OTHER_TYPES.has(type)) report.skip(type)
      else if (TREE_TYPES.has(type)) report.skip(`${type} record without uuid`)
      else report.unknownType(type)
      continue
    }
    const time = timeOf(raw.timestamp)
    sessionId ??= nonEmpty(raw.sessionId)
    cwd ??= absolutePath(raw.cwd)
    if (time !== undefined && (createdAt === undefined || time < createdAt)) createdAt = time
    const node: TreeNode<ClaudeRecord> = {
      id: uuid, parent: nonEmpty(raw.parentUuid) ?? null, line, ...(time === undefined ? {} : { time }),
      record: { raw, type, uuid, ...(time === undefined ? {} : { time }) },
    }
    const logicalParent = nonEmpty(raw.logicalParentUuid)
    if (node.parent === null && logicalParent !== undefined) logical.set(node, logicalParent)
    ;(raw.isSidechain === true ? side : main).push(node)
  }
  return {
    ...linked(main, side, logical), titles,
    ...(sessionId === undefined ? {} : { sessionId }), ...(cwd === undefined ? {} : { cwd }), ...(createdAt === undefined ? {} : { createdAt }),
  }
}

/** The two forests' parent links: a compaction boundary continues the record it names; a sidechain starts its own tree. */
function linked(main: readonly TreeNode<ClaudeRecord>[], side: readonly TreeNode<ClaudeRecord>[], logical: ReadonlyMap<TreeNode<ClaudeRecord>, string>) {
  const ids = new Set(main.map(node => node.id))
  const sideIds = new Set(side.map(node => node.id))
  return {
    main: main.map(node => (logical.has(node) && ids.has(logical.get(node)!) ? { ...node, parent: logical.get(node)! } : node)),
    // A subagent's first record may name the main-chain record that spawned it: its own tree starts there.
    side: side.map(node => (node.parent !== null && !sideIds.has(node.parent) ? { ...node, parent: null } : node)),
  }
}

/** The items of the path to `leaf`, with the title of the newest summary written on that path. */
function conversation(forest: Forest<ClaudeRecord>, leaf: TreeNode<ClaudeRecord>, titles: readonly Title[], report: ReportBuilder): Conversation {
  const path = forest.pathTo(leaf.id)
  const items = claudeItems(path.map(node => node.record), report)
  const onPath = new Set(path.map(node => node.id))
  const title = titles.findLast(candidate => onPath.has(candidate.leaf))
  if (title !== undefined) items.push({ kind: 'title', title: title.summary })
  return { items, leaf: leaf.id }
}

/** The main conversation (the summary's leaf, else the newest) and the other branches, leaf file order. */
function mainAndBranches(forest: Forest<ClaudeRecord>, titles: readonly Title[], report: ReportBuilder): { main?: Conversation; branches: Conversation[] } {
  const leaves = forest.leaves()
  const named = [...titles].reverse().map(title => leaves.find(leaf => leaf.id === title.leaf)).find(leaf => leaf !== undefined)
  const mainLeaf = named ?? newestLeaf(leaves)
  if (mainLeaf === undefined) return { branches: [] }
  const branches = leaves.filter(leaf => leaf !== mainLeaf).map(leaf => conversation(forest, leaf, titles, report))
  return { main: conversation(forest, mainLeaf, titles, report), branches }
}

/** One subagent conversation per sidechain tree (its newest leaf); other sidechain branches are reported. */
function subagents(forest: Forest<ClaudeRecord>, titles: readonly Title[], report: ReportBuilder): SubagentConversation[] {
  const byRoot = new Map<string, TreeNode<ClaudeRecord>[]>()
  for (const leaf of forest.leaves()) {
    const root = forest.pathTo(leaf.id)[0]!
    const list = byRoot.get(root.id)
    if (list === undefined) byRoot.set(root.id, [leaf])
    else list.push(leaf)
  }
  const agents: SubagentConversation[] = []
  for (const [rootId, leaves] of byRoot) {
    const leaf = newestLeaf(leaves)!
    for (const other of leaves) {
      if (other === leaf) continue
      report.note(`the subagent branch ending at ${other.id} was not imported (only a subagent's newest branch is)`)
      report.skip('subagent branch', other.id)
    }
    const agentId = nonEmpty(forest.byId.get(rootId)!.record.raw.agentId)
    const suffix = agentId !== undefined && /^[A-Za-z0-9._-]+$/.test(agentId) ? agentId : String(agents.length + 1)
    agents.push({ ...conversation(forest, leaf, titles, report), suffix })
  }
  return agents
}

/**
 * Import a Claude Code transcript: the main session, its branches as forks, its subagents as child sessions,
 * each checked as `logbook verify` checks it, and a report of what was skipped.
 * @throws InteropError `SOURCE_UNREADABLE`, `SOURCE_EMPTY`, `SOURCE_NOT_JSON` (a line other than a torn final one),
 * `SOURCE_MALFORMED` (a record whose parent is not in the file, a cycle, no session id), `INVALID_SESSION_ID`.
 */
export async function importClaudeCode(input: ImportInput, options: ImportOptions = {}): Promise<ImportResult> {
  const { text, label, file } = await readInput(input, options)
  const source = parseJsonLines(text, label, file)
  const report = new ReportBuilder()
  if (source.tornTail) report.note('the final line is incomplete (the file was being written) and was skipped')
  const found = scan(source, report)
  const onDuplicate = (node: TreeNode<ClaudeRecord>): void => report.skip('repeated uuid', `${node.id}:${node.line}`)
  const mainForest = new Forest(found.main, label, onDuplicate)
  const sideForest = new Forest(found.side, label, onDuplicate)
  const { main, branches } = mainAndBranches(mainForest, found.titles, report)
  const sessions = assembleSessions({
    tool: 'claude-code', source: report.source('Claude Code', found.sessionId ?? label, found.createdAt ?? 0), label,
    ...(file === undefined ? {} : { file }), ...(found.sessionId === undefined ? {} : { sourceId: found.sessionId }),
    id: options.id, ...(found.cwd === undefined ? {} : { cwd: found.cwd }), createdAt: found.createdAt ?? 0,
    ...(main === undefined ? {} : { main }), branches, subagents: subagents(sideForest, found.titles, report),
  })
  return { sessions, report: report.report('claude-code', source.lines.length, file, found.sessionId) }
}
