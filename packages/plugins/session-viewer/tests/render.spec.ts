import { SessionId } from '@logbook/session'
import { describe, expect, it } from 'vitest'
import { renderSessionHtml, renderSessionMarkdown } from '../src/index.ts'
import { FILE_POLICY } from '../src/render/document.ts'
import { fenced } from '../src/export/markdown.ts'
import { count } from '../src/render/format.ts'
import { searchPageBody } from '../src/render/list-page.ts'
import { LogBuilder } from './log.ts'

const HOSTILE = '<script>x</script> & "q" <img src=x onerror=y>'

function sample(): LogBuilder {
  return new LogBuilder('s').system('Be brief.')
    .startTurn(HOSTILE).reply('Looking.', { calls: [{ id: 'c1', name: 'grep', args: '{"q":"```"}' }], reasoning: 'think' })
    .call({ id: 'c1', name: 'grep', args: '{"q":"```"}' }).result('c1', 'found ``` here', 'GREP_FAILED')
    .nextStep().reply('Nothing found.').endTurn()
    .compact(1, 3, 'asked to grep')
    .startTurn('again').reply('Still nothing.').endTurn()
}

describe('rendering', () => {
  it('L-160 session text never becomes markup: every value is escaped', () => {
    const page = renderSessionHtml({ header: sample().header, events: sample().events })
    expect(page).not.toContain('<script>x</script>')
    expect(page).not.toContain('<img src=x')
    expect(page).toContain('&lt;script&gt;x&lt;/script&gt; &amp; &quot;q&quot; &lt;img src=x onerror=y&gt;')
  })

  it('L-155 a refusal is marked as one, in the page and in Markdown', () => {
    const log = new LogBuilder('r').startTurn('please').reply('', { refusal: 'No.' }).endTurn()
    const page = renderSessionHtml({ header: log.header, events: log.events })
    expect(page).toContain('<div class="refusal"><span class="badge refusal">refusal</span><div class="text">No.</div></div>')
    expect(renderSessionMarkdown({ header: log.header, events: log.events })).toContain('> **Refusal:** No.')
  })

  it('L-162 the HTML export is one file: stylesheet inline, no script, a policy that forbids every fetch', () => {
    const page = renderSessionHtml({ header: sample().header, events: sample().events })
    expect(page.startsWith('<!doctype html>\n<html lang="en">')).toBe(true)
    expect(page).toContain(`<meta http-equiv="Content-Security-Policy" content="${FILE_POLICY.replace(/'/g, '&#39;')}">`)
    expect(page).toContain('<style>')
    expect(page).not.toMatch(/<script|<link|src="|url\(/)
    expect(page).not.toMatch(/https?:\/\//)
    // Both views are in the file, with the switch between them.
    expect(page).toContain('id="log-view"')
    expect(page).toContain('id="surface-view"')
    expect(page).toContain('<label for="view-surface" class="tab tab-surface">What the model sees</label>')
  })

  it('L-161 the Markdown export is the log view by turn: facts, messages, tool calls fenced, compaction, turn ends', () => {
    const markdown = renderSessionMarkdown({ header: sample().header, events: sample().events })
    const lines = markdown.split('\n')
    expect(lines[0]).toBe('# &lt;script&gt;x&lt;/script&gt; &amp; "q" &lt;img src=x onerror=y&gt;')
    expect(markdown).not.toContain('<script>')
    expect(lines).toContain('| Session | `s` |')
    expect(lines).toContain('| Tokens | in 300 · out 30 |')
    expect(lines.filter(line => line.startsWith('## '))).toEqual([
      '## Before the first turn · in 0 · out 0',
      '## Turn 1 · completed · in 200 · out 20',
      '## Turn 2 · completed · in 100 · out 10',
    ])
    expect(markdown).toContain('<details><summary>Reasoning</summary>\n\nthink\n\n</details>')
    expect(markdown).toContain('**Tool call** `grep`\n\n````json\n{"q":"```"}\n````')
    expect(markdown).toContain('**Result** — GREP_FAILED · not on the surface')
    expect(markdown).toContain('**Compaction** (manual) · ~900 → ~120 tokens · summary in 50 · out 5\n\nasked to grep')
    expect(markdown).toContain('_Turn ended: completed_')
  })

  it('L-161 a fence is longer than any backtick run inside it', () => {
    expect(fenced('a ```` b', 'text')).toBe('`````text\na ```` b\n`````')
    expect(fenced('plain')).toBe('```\nplain\n```')
  })

  it('L-161 counts are grouped by thousands', () => {
    expect([0, 999, 1000, 111_000, 1_234_567, -4200].map(count)).toEqual(['0', '999', '1,000', '111,000', '1,234,567', '-4,200'])
  })

  it('L-165 a search hit names its session, turn, seq, type and field, where it is, and whether a fork inherited it', () => {
    const hit = {
      sessionId: SessionId('child'), title: 'Plan <it>', turn: 1, seq: 2, type: 'user/message', field: 'user' as const,
      onSurface: true, inherited: true, score: 1, snippet: [{ text: 'the ', match: false }, { text: 'word', match: true }],
    }
    const page = searchPageBody('word', false, { hits: [hit] }).text
    expect(page).toContain('<a class="hit-link" href="/session/child?at=2&amp;view=surface#s2">Plan &lt;it&gt;</a>')
    expect(page).toContain('<span class="meta">child · turn 1 · seq 2 · user/message · user</span>')
    expect(page).toContain('<span class="badge on-surface">on the surface</span> <span class="badge inherited">inherited from the parent</span>')
    expect(page).toContain('<div class="snippet">the <mark>word</mark></div>')
    expect(searchPageBody('word', false, { hits: [{ ...hit, inherited: false }] }).text).not.toContain('inherited')
  })
})
