/**
 * The script of the auth pages: it sends the page's form as JSON to the API
 * route its `data-endpoint` names, and shows the answer's message (or its
 * error and field errors) in `#outcome`, as text, never as markup. A form
 * marked `data-submit-on-load` is sent as soon as the page opens (the
 * verification link: the click on it is the user's consent).
 */
export const FORM_SCRIPT = `(() => {
  const form = document.querySelector('form[data-endpoint]')
  const outcome = document.getElementById('outcome')
  if (!form || !outcome) return
  const button = form.querySelector('button')
  function show(kind, message, details) {
    outcome.className = kind
    outcome.replaceChildren(document.createTextNode(message))
    if (details.length > 0) {
      const list = document.createElement('ul')
      for (const detail of details) {
        const item = document.createElement('li')
        item.textContent = detail
        list.append(item)
      }
      outcome.append(list)
    }
  }
  async function send() {
    const body = {}
    for (const [name, value] of new FormData(form)) body[name] = value
    if (button) button.disabled = true
    show('', 'Sending...', [])
    try {
      const response = await fetch(form.dataset.endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(body),
      })
      const answer = await response.json().catch(() => ({}))
      if (response.ok && answer.success) {
        show('ok', answer.message || 'Done.', [])
        form.hidden = true
        return
      }
      const details = Object.values(answer.errors || {}).flat().map(String)
      show('error', answer.error || 'The request failed (' + response.status + ').', details)
    } catch (error) {
      show('error', 'The server could not be reached: ' + error.message, [])
    }
    if (button) button.disabled = false
  }
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    void send()
  })
  if (form.dataset.submitOnLoad !== undefined) void send()
})()
`
