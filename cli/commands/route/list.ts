import { ROUTE_METHODS } from '../../../framework/router/types.ts'
import { defineCommand } from '../../command/define.ts'
import { CliError } from '../../output/cli-error.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { colors, printLine, table } from '../../output/print.ts'
import { projectFor } from '../../project/project.ts'
import { projectRoutes } from '../../project/route-cache.ts'

/** What `--method` can name: a route's method, HEAD (answered by GET routes), or ANY. */
const METHOD_FILTERS: readonly string[] = [...ROUTE_METHODS, 'HEAD', 'ANY']

export default defineCommand({
  meta: { name: 'route:list', group: 'Routes', description: 'List routes with their middleware', json: ['RouteListJson'] },
  args: {
    ...cwdArg,
    ...jsonArg,
    method: { type: 'string', description: 'Only routes answering this method: GET, POST, PUT, PATCH, DELETE, HEAD (the GET routes) or ANY, in any case', valueHint: 'GET' },
    path: { type: 'string', description: 'Only routes whose path contains this text', valueHint: 'text' },
  },
  async run({ args, io, json }) {
    const method = args.method?.toUpperCase()
    // A misspelt method (PSOT) would match nothing and look like an app without such routes.
    if (method !== undefined && !METHOD_FILTERS.includes(method)) {
      throw new CliError('E_BAD_OPTION', `--method takes one of ${METHOD_FILTERS.join(', ')}, got "${args.method}"`)
    }
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
