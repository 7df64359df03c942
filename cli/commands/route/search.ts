import { defineCommand } from '../../command/define.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { colors, printLine, table } from '../../output/print.ts'
import { projectFor } from '../../project/project.ts'
import { projectRoutes } from '../../project/route-cache.ts'
import { searchRoutes } from '../../routes/search.ts'

export default defineCommand({
  meta: { name: 'route:search', group: 'Routes', description: 'Find routes by path, handler, middleware or controller', json: ['RouteSearchJson'] },
  args: {
    keyword: { type: 'positional', description: 'Text to look for (case-insensitive)', valueHint: 'keyword' },
    ...cwdArg,
    ...jsonArg,
  },
  async run({ args, io, json }) {
    const project = projectFor(io, args.cwd)
    const routes = searchRoutes(project, await projectRoutes(project), args.keyword)
    if (args.json) return json({ keyword: args.keyword, routes })
    if (routes.length === 0) return printLine(io, `No route matches "${args.keyword}" (svc route:list shows them all).`)
    const color = colors(io)
    const mark = (text: string) => highlight(text, args.keyword, color.yellow)
    printLine(
      io,
      table(
        routes.map((route) => [
          color.green(route.method),
          mark(route.path),
          route.middleware.map(mark).join(', ') || color.dim('-'),
          mark(route.handler),
          route.controller ? mark(route.controller.file) : color.dim('-'),
        ]),
        ['METHOD', 'PATH', 'MIDDLEWARE', 'HANDLER', 'CONTROLLER'],
      ),
    )
    printLine(io, color.dim(`\n${routes.length} route${routes.length === 1 ? '' : 's'} match "${args.keyword}"`))
  },
})

/** Every case-insensitive occurrence of `keyword` in `text`, painted. */
function highlight(text: string, keyword: string, paint: (text: string) => string): string {
  if (keyword === '') return text
  const lower = text.toLowerCase()
  const needle = keyword.toLowerCase()
  let result = ''
  let from = 0
  for (let at = lower.indexOf(needle); at !== -1; at = lower.indexOf(needle, from)) {
    result += text.slice(from, at) + paint(text.slice(at, at + needle.length))
    from = at + needle.length
  }
  return result + text.slice(from)
}
