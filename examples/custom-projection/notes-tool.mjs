// A tool for the example app: read_note answers from two fixed notes, so the histogram has calls to count.
export const name = 'example-notes'
export const inject = ['tools']

const NOTES = {
  'release.md': 'Release 1.4 ships on Thursday.',
  'deploy.md': 'Deploy to staging first, then production.',
}

export function apply(ctx) {
  ctx.tools.register({
    name: 'read_note',
    description: 'Read one note by name.',
    parameters: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    concurrency: 'parallel-safe',
    execute: ({ name }) => NOTES[name] ?? `no note named ${name}`,
  })
}
