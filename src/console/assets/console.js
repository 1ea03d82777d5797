// Progressive enhancement only: every page works without this script.
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
