/** Home (/console/): the page a person lands on after signing in — what waits for them (home-sections.ts). */
import { Type } from 'typebox'
import { spendThisMonth } from '../../reports/home.service.ts'
import { sendPage, type ConsoleApp, type ConsoleDeps } from '../context.ts'
import { homeView } from '../views/home.ts'
import { HOME_SECTIONS, homeContext } from './home-sections.ts'

const HomeQuery = Type.Object({ welcome: Type.Optional(Type.String({ maxLength: 5 })) })

export function homePages(app: ConsoleApp, deps: ConsoleDeps): void {
  app.get('/', { schema: { hide: true, querystring: HomeQuery } }, async (request, reply) => {
    const actor = request.session.actor
    const context = await homeContext(deps, actor)
    const [read, spend] = await Promise.all([
      Promise.all(HOME_SECTIONS.map(async (s) => ({ section: s, items: await s.read(context) }))),
      spendThisMonth(deps.db, actor), // undefined for someone who may not read reports
    ])
    const sections = read.flatMap(({ section, items }) =>
      items === undefined ? [] : [{ title: section.title, none: section.none, items }],
    )
    return sendPage(reply, homeView({ sections, spend, welcome: request.query.welcome === '1' }, request.session))
  })
}
