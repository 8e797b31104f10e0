// Logbook session viewer, in the browser: follows a served session page live (server-sent events carry the HTML
// of the turns and surface groups that changed), keeps the chosen view across pages, and marks the event a link
// points at. Pages work without it; exported files do not load it.

const main = document.querySelector('main.session')
if (main !== null) {
  keepView()
  revealTarget()
  if (main.dataset.live === 'true') follow(main)
}

/** Pager links and the address carry the view the reader switched to. */
function keepView() {
  for (const input of document.querySelectorAll('input.view-switch')) {
    input.addEventListener('change', () => {
      for (const link of document.querySelectorAll('.pager a[href]')) {
        const url = new URL(link.href)
        url.searchParams.set('view', input.value)
        link.href = url.pathname + url.search
      }
      const here = new URL(location.href)
      here.searchParams.set('view', input.value)
      history.replaceState(null, '', here.pathname + here.search + here.hash)
    })
  }
}

/** An `at` link marks its event, or the nearest earlier one shown (chunks and step boundaries have no element). */
function revealTarget() {
  const params = new URLSearchParams(location.search)
  const at = Number(params.get('at'))
  if (!params.has('at') || !Number.isSafeInteger(at)) return
  const surface = document.getElementById('view-surface')?.checked === true
  const container = document.getElementById(surface ? 'surface-view' : 'log-view')
  if (container === null) return
  let target = document.getElementById(`${surface ? 's' : 'e'}${at}`)
  if (target === null) {
    for (const element of container.querySelectorAll('[data-seq]')) {
      if (Number(element.dataset.seq) <= at) target = element
    }
  }
  if (target === null) return
  for (let node = target.parentElement; node !== null; node = node.parentElement) {
    if (node.tagName === 'DETAILS') node.open = true
  }
  target.classList.add('target')
  target.scrollIntoView({ block: 'center' })
}

/** One element from server-rendered HTML. */
function element(text) {
  const template = document.createElement('template')
  template.innerHTML = text
  return template.content.firstElementChild
}

/** Keys of the open `<details>` inside `root`, so a replaced piece keeps what the reader expanded. */
function openDetails(root) {
  const keys = new Set()
  for (const details of root.querySelectorAll('details[open]')) keys.add(detailsKey(details))
  return keys
}

function detailsKey(details) {
  const owner = details.closest('[data-seq]')
  return `${owner === null ? '' : owner.dataset.seq}:${details.className}:${details.querySelector('summary')?.textContent ?? ''}`
}

/** Replaces the piece with the same id, or appends it when this page shows the newest turns. */
function place(container, piece, tail) {
  const fresh = element(piece.html)
  if (fresh === null) return
  const old = document.getElementById(piece.id)
  if (old !== null) {
    const keep = openDetails(old)
    for (const details of fresh.querySelectorAll('details')) if (keep.has(detailsKey(details))) details.open = true
    old.replaceWith(fresh)
  } else if (tail) {
    container.querySelector('.empty')?.remove()
    container.append(fresh)
  }
}

function status(text) {
  let badge = document.querySelector('.live-status')
  if (badge === null) {
    badge = document.createElement('div')
    badge.className = 'live-status'
    badge.setAttribute('role', 'status')
    document.body.append(badge)
  }
  badge.textContent = text
}

/** Follows the session: each `update` carries the HTML of what changed since the page's last seq. */
function follow(page) {
  const tail = page.dataset.tail === 'true'
  const source = new EventSource(`/session/${encodeURIComponent(page.dataset.session)}/live?after=${page.dataset.nextSeq}`)
  source.addEventListener('open', () => status('following the log'))
  source.addEventListener('error', () => status('not connected; retrying'))
  source.addEventListener('update', (event) => {
    const update = JSON.parse(event.data)
    const head = document.getElementById('session-head')
    const fresh = element(update.head)
    if (head !== null && fresh !== null) head.replaceWith(fresh)
    for (const piece of update.log) place(document.getElementById('log-view'), piece, tail)
    for (const piece of update.surface) place(document.getElementById('surface-view'), piece, tail)
    page.dataset.nextSeq = String(update.nextSeq)
  })
  source.addEventListener('reload', () => location.reload())
  source.addEventListener('gone', (event) => {
    source.close()
    status(JSON.parse(event.data).message)
  })
}
