import { defineCommand } from '../../command/define.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { colors } from '../../output/print.ts'
import { projectFor } from '../../project/project.ts'
import { routeRules } from '../../routes/rules.ts'
import { printRouteRules } from '../../routes/rules-view.ts'

export default defineCommand({
  meta: { name: 'route:rules', group: 'Routes', description: "Each route's declared request schema (body, query) as JSON Schema", json: ['RouteRulesJson'] },
  args: { ...cwdArg, ...jsonArg },
  async run({ args, io, json }) {
    const rules = await routeRules(projectFor(io, args.cwd))
    if (args.json) return json(rules)
    printRouteRules(io, rules, colors(io))
  },
})
