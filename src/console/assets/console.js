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

// Times in the reader's own time zone; the exact instant stays in the title.
const local = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' })
for (const time of document.querySelectorAll('time[datetime]')) {
  const instant = new Date(time.getAttribute('datetime'))
  if (!Number.isNaN(instant.getTime())) time.textContent = local.format(instant)
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
