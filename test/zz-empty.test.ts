import { test } from 'node:test'
const t0 = performance.now()
const { useTestApp } = await import('./helpers/app.ts')
const t1 = performance.now()
const ctx = useTestApp()
test('x', async () => {
  const t2 = performance.now()
  console.log('boot', t0, 'import', t1 - t0, 'app ready at', t2 - t1, 'cpu', process.cpuUsage())
})
