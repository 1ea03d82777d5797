// Progressive enhancement only: every page works without this script.

// Copy buttons: data-copy names the element whose text is copied.
document.addEventListener('click', (event) => {
  const button = event.target instanceof Element ? event.target.closest('[data-copy]') : null
  if (button === null) return
  const source = document.getElementById(button.getAttribute('data-copy'))
  if (source === null || navigator.clipboard === undefined) return
  navigator.clipboard.writeText(source.textContent.trim()).then(() => {
    const status = document.getElementById('copy-status')
    if (status !== null) status.textContent = `${button.getAttribute('data-label') ?? 'Value'} copied.`
  })
})

// A click anywhere on a list row opens it (the row's first link does the same for the keyboard).
document.addEventListener('click', (event) => {
  const target = event.target instanceof Element ? event.target : null
  if (target === null || target.closest('a, button, input, select, textarea, label') !== null) return
  const row = target.closest('tr[data-href]')
  if (row !== null) location.assign(row.getAttribute('data-href'))
})

// Times in the reader's own time zone, written the console's one way ("25 Nov 2026, 09:41", as the server
// writes them in UTC); the exact instant stays in the title. Calendar dates (data-date) are not instants.
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sept', 'Oct', 'Nov', 'Dec']
const two = (n) => String(n).padStart(2, '0')
for (const time of document.querySelectorAll('time[datetime]:not([data-date])')) {
  const d = new Date(time.getAttribute('datetime'))
  if (!Number.isNaN(d.getTime()))
    time.textContent = `${d.getDate()} ${MONTHS[d.getMonth()]} ${d.getFullYear()}, ${two(d.getHours())}:${two(d.getMinutes())}`
}

// A department select follows its location select: only the chosen location's departments are offered.
for (const select of document.querySelectorAll('select[data-follows]')) {
  const location = document.getElementById(select.getAttribute('data-follows'))
  if (location === null) continue
  const follow = () => {
    for (const group of select.querySelectorAll('optgroup[data-location]')) {
      const offered =
        location.value === '' || group.dataset.location === '' || group.dataset.location === location.value
      group.hidden = !offered
      group.disabled = !offered
      if (!offered && group.contains(select.selectedOptions[0] ?? null)) select.value = ''
    }
  }
  location.addEventListener('change', follow)
  follow()
}

// The running total of a lines editor, kept while lines are typed (the server writes it when it shows the form).
for (const output of document.querySelectorAll('output[data-running-total]')) {
  const form = output.closest('form')
  if (form === null) continue
  const scaled = (text) => {
    const match = /^(\d{1,16})(?:\.(\d{1,4}))?$/.exec(text.trim())
    return match === null ? null : BigInt(match[1] + (match[2] ?? '').padEnd(4, '0'))
  }
  const update = () => {
    let sum = 0n
    for (const quantity of form.querySelectorAll('input[name$=".quantity"]')) {
      const price = form.elements.namedItem(quantity.name.replace(/quantity$/, 'unit_price'))
      const remove = form.elements.namedItem(quantity.name.replace(/quantity$/, 'remove'))
      const q = scaled(quantity.value)
      const p = price === null ? null : scaled(price.value)
      if (q === null || p === null || remove?.checked === true) continue
      sum += q * p
    }
    const cents = ((sum + 500_000n) / 1_000_000n).toString().padStart(3, '0')
    const whole = cents.slice(0, -2).replace(/\B(?=(\d{3})+(?!\d))/g, ',')
    output.textContent = `${whole}.${cents.slice(-2)}`
    const currency = form.elements.namedItem('currency')
    const label = form.querySelector('[data-running-currency]')
    if (label !== null && currency !== null) label.textContent = currency.value || 'in the location’s currency'
  }
  form.addEventListener('input', update)
  form.addEventListener('change', update)
  update()
}

// After a failed submit, the error summary takes the focus so it is read out first.
document.getElementById('error-summary')?.focus()

// A file input with data-fills puts the chosen file's text into the named box (the form posts the text).
for (const picker of document.querySelectorAll('input[type="file"][data-fills]')) {
  picker.addEventListener('change', () => {
    const box = document.getElementById(picker.getAttribute('data-fills'))
    const file = picker.files?.[0]
    if (box === null || file === undefined) return
    file.text().then((text) => {
      box.value = text
    })
  })
}

// Phones show a table's rows as cards: each cell is labelled with its column's heading (console.css).
for (const table of document.querySelectorAll('.table-wrap table')) {
  const headings = [...table.querySelectorAll('thead th')].map((th) => th.textContent.trim())
  for (const row of table.querySelectorAll('tbody tr'))
    [...row.children].forEach((cell, i) => {
      if (headings[i] && !cell.hasAttribute('data-label')) cell.setAttribute('data-label', headings[i])
    })
}

// The budgets a request would count against, checked as its lines are typed (pages/budget-check.ts answers with
// sentences as JSON; they are written as text, never as markup). Without this script "Check budgets" posts the form.
const BUDGET_FIELDS = /^(_csrf|rows|location|department|currency|lines\.\d+\.(quantity|unit_price|account|remove))$/
const BUDGET_TONES = ['within', 'warn', 'block', 'approve', 'fix']
for (const region of document.querySelectorAll('[data-budget-check]')) {
  const form = region.closest('form')
  if (form === null) continue
  let shownKey = ''
  const show = (state) => {
    // The same sentences again are not written again (a live region would read them out once more).
    const key = JSON.stringify(state)
    if (key === shownKey) return
    shownKey = key
    const summary = document.createElement('p')
    summary.textContent = String(state.summary ?? '')
    const shown = [summary]
    const items = Array.isArray(state.items) ? state.items : []
    if (items.length > 0) {
      const list = document.createElement('ul')
      for (const item of items) {
        const entry = document.createElement('li')
        if (BUDGET_TONES.includes(item.tone)) entry.className = `budget-${item.tone}`
        entry.textContent = String(item.text ?? '')
        list.append(entry)
      }
      shown.push(list)
    }
    region.dataset.outcome = String(state.outcome ?? 'error')
    region.replaceChildren(...shown)
  }
  const fields = () => {
    const body = new URLSearchParams()
    for (const [name, value] of new FormData(form))
      if (typeof value === 'string' && BUDGET_FIELDS.test(name)) body.append(name, value)
    return body
  }
  let asked = region.dataset.outcome === 'idle' ? '' : fields().toString()
  let timer
  let pending
  const check = () => {
    const body = fields()
    if (body.toString() === asked) return
    asked = body.toString()
    pending?.abort()
    pending = new AbortController()
    fetch(region.dataset.budgetCheck, {
      method: 'POST',
      body,
      headers: { accept: 'application/json' },
      credentials: 'same-origin',
      redirect: 'error',
      signal: pending.signal,
    })
      .then((response) => {
        if (!/^application\/json/.test(response.headers.get('content-type') ?? '')) throw new Error('not JSON')
        return response.json()
      })
      .then(show)
      .catch((error) => {
        if (error.name === 'AbortError') return
        asked = ''
        show({
          outcome: 'error',
          summary: 'The budgets could not be checked just now. Reload the page, or press “Check budgets”.',
          items: [],
        })
      })
  }
  const later = () => {
    clearTimeout(timer)
    timer = setTimeout(check, 400)
  }
  form.addEventListener('input', later)
  form.addEventListener('change', later)
  // A form shown with lines already (an edit, or after "Add a line") is checked at once.
  if ([...form.querySelectorAll('input[name$=".quantity"]')].some((q) => q.value.trim() !== '')) check()
}
