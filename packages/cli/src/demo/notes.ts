/**
 * The demo's fixed notebook: what `list_notes` lists and `read_note` returns. Constant, so every demo run prints
 * the same transcript.
 */

/** Note name → text, in listing order. */
export const DEMO_NOTES: Readonly<Record<string, string>> = Object.freeze({
  'release.md': 'Release 1.4: faster resume after a crash, fork inside an open turn. Code freeze on Thursday; Dana owns the release.',
  'deploy.md': 'Deploy with `make deploy ENV=staging`, then smoke-test /health. Production needs a second approver.',
  'ideas.md': 'Later: export sessions in the OpenAI message format.',
})
