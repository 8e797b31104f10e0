/** Reading a server-sent event stream in the tests. */

/** Reads server-sent events from `response` until `done` accepts one. */
export async function until(response: Response, done: (event: string, data: string) => boolean): Promise<{ event: string; data: string }> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
  let buffer = ''
  for (;;) {
    const { value, done: ended } = await reader.read()
    if (ended) throw new Error('the stream ended')
    buffer += value
    let end: number
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end)
      buffer = buffer.slice(end + 2)
      const event = /^event: (.*)$/m.exec(block)?.[1]
      const data = /^data: (.*)$/m.exec(block)?.[1]
      if (event !== undefined && data !== undefined && done(event, data)) {
        await reader.cancel()
        return { event, data }
      }
    }
  }
}
