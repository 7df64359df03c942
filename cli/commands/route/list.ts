import { defineCommand } from '../../command/define.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { colors, printLine, table } from '../../output/print.ts'
import { projectFor } from '../../project/project.ts'
import { projectRoutes } from '../../project/route-cache.ts'

export default defineCommand({
  meta: { name: 'route:list', group: 'Routes', description: 'List routes with their middleware', json: ['RouteListJson'] },
  args: {
    ...cwdArg,
    ...jsonArg,
    method: { type: 'string', description: 'Only routes answering this method', valueHint: 'GET' },
    path: { type: 'string', description: 'Only routes whose path contains this text', valueHint: 'text' },
  },
  async run({ args, io, json }) {
    const method = args.method?.toUpperCase()
    const routes = (await projectRoutes(projectFor(io, args.cwd))).filter(
      (route) =>
        (method === undefined || route.method === method || route.method === 'ANY' || (method === 'HEAD' && route.method === 'GET')) &&
        (args.path === undefined || route.path.includes(args.path)),
    )
    if (args.json) return json({ routes })
    if (routes.length === 0) return printLine(io, 'No routes match.')
    const color = colors(io)
    printLine(
      io,
      table(
        routes.map((route) => [
          color.green(route.method),
          route.path.replace(/\{[^}]+\}/g, (param) => color.yellow(param)),
          route.middleware.join(', ') || color.dim('-'),
          route.handler,
          route.source ? color.dim(`${route.source.file}:${route.source.line}`) : '',
        ]),
        ['METHOD', 'PATH', 'MIDDLEWARE', 'HANDLER', 'SOURCE'],
      ),
    )
    printLine(io, color.dim(`\n${routes.length} route${routes.length === 1 ? '' : 's'}`))
  },
})
