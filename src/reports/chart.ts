/**
 * A report's SVG form: a bar chart drawn on the server by Apache ECharts' server-side SVG renderer (no
 * browser, no DOM), one category per row — the same rows as every other form. The bars run across, so long
 * names read as labels on the left; the drawing has a viewBox and scales to its container (readable at
 * 390 px). For assistive technology the root is `role="img"` with a `<title>` and a `<desc>` saying what is
 * drawn; the numbers it draws travel in `<metadata>` as JSON (what tests and tools read back).
 */
import { BarChart } from 'echarts/charts'
import { GridComponent, LegendComponent, TitleComponent } from 'echarts/components'
import * as echarts from 'echarts/core'
import { SVGRenderer } from 'echarts/renderers'
import { visible } from '../core/visible.ts'
import type { ReportDefinition, Row } from './definitions.ts'

echarts.use([BarChart, GridComponent, LegendComponent, TitleComponent, SVGRenderer])

const WIDTH = 420
const FONT = 13

const escapeXml = (text: string) =>
  visible(text).replace(
    /[<>&"']/g,
    (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!,
  )

/** What the chart shows, as data: its categories and each series' values (null: nothing to draw). */
export interface ChartData {
  categories: string[]
  series: { name: string; values: (number | null)[] }[]
  unit: 'amount' | 'hours'
}

export function chartData(report: ReportDefinition, rows: Row[]): ChartData {
  return {
    categories: rows.map((row) => visible(report.chart.category(row))),
    series: report.chart.series.map((s) => ({ name: visible(s.name), values: rows.map(s.value) })),
    unit: report.chart.unit,
  }
}

/**
 * The SVG document: `id` makes its title's id unique in a page that shows it inline; `caption` is the title
 * (the report's name and what it is measured in).
 */
export function reportSvg(
  report: ReportDefinition,
  rows: Row[],
  caption: string,
  id = `report-${report.name}`,
): string {
  const data = chartData(report, rows)
  const bands = data.categories.length
  const perBand = report.chart.stack || data.series.length === 1 ? 30 : 14 * data.series.length + 12
  // One legend entry a row: the browser's font is not the one the server measured with, so entries side by
  // side could run into each other.
  const top = 16 + data.series.length * 20
  const hours = data.unit === 'hours'
  const height = Math.max(160, top + 40 + (hours ? 24 : 0) + bands * perBand)
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width: WIDTH, height })
  try {
    chart.setOption({
      animation: false,
      textStyle: { fontSize: FONT, fontFamily: 'system-ui, sans-serif', color: '#1f2933' },
      color: ['#1d4ed8', '#b45309', '#047857', '#6d28d9', '#be123c'],
      legend: { top: 4, left: 0, orient: 'vertical', itemGap: 6, textStyle: { fontSize: FONT } },
      grid: { left: 8, right: 24, top, bottom: hours ? 32 : 8, containLabel: true }, // long names wrap inside the drawing, never cut at its edge
      title:
        bands === 0
          ? { text: 'No rows match these filters.', left: 'center', top: 'middle', textStyle: { fontSize: 15 } }
          : undefined,
      xAxis: {
        type: 'value',
        axisLabel: { fontSize: FONT - 1, hideOverlap: true },
        // Under the axis, centred: at its end the name was cut at the drawing's edge.
        ...(hours ? { name: 'hours', nameLocation: 'middle', nameGap: 24 } : {}),
      },
      yAxis: {
        type: 'category',
        inverse: true,
        data: data.categories,
        axisLabel: { fontSize: FONT, width: 130, overflow: 'break' },
      },
      series: data.series.map((s) => ({
        type: 'bar',
        name: s.name,
        stack: report.chart.stack ? 'total' : undefined,
        data: s.values,
        barMaxWidth: 22,
      })),
    })
    const svg = chart.renderToSVGString({ useViewBox: true })
    return accessible(svg, data, caption, id)
  } finally {
    chart.dispose()
  }
}

/** Gives the root `role="img"`, a title and a description, the data as metadata, and a fluid width. */
function accessible(svg: string, data: ChartData, caption: string, id: string): string {
  const summary =
    data.categories.length === 0
      ? 'No rows match these filters.'
      : `A bar chart of ${data.categories.length} ${data.categories.length === 1 ? 'row' : 'rows'}: ${data.series
          .map((s) => s.name)
          .join(', ')}${data.unit === 'hours' ? ' in hours' : ''}. The table beside it has the same figures.`
  const json = JSON.stringify(data).replace(/[<>&']/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
  const head = `<title id="${id}-title">${escapeXml(caption)}</title><desc id="${id}-desc">${escapeXml(summary)}</desc><metadata id="${id}-data" data-format="application/json">${json}</metadata>`
  return svg.replace(/^<svg\b([^>]*)>/, (_whole, attributes: string) => {
    const fluid = attributes.replace(/\swidth="[^"]*"/, ' width="100%"').replace(/\sheight="[^"]*"/, '')
    return `<svg${fluid} role="img" aria-labelledby="${id}-title ${id}-desc">${head}`
  })
}
