import { defineCommand } from '../../command/define.ts'
import { printOpenApiWarnings } from '../../openapi/warnings-view.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { CliError } from '../../output/cli-error.ts'
import { printLine, printNote } from '../../output/print.ts'
import { writePostman } from '../../postman/write.ts'
import { loadConfig } from '../../project/load-app.ts'
import { projectFor } from '../../project/project.ts'

/** A Postman v2.1 collection from the app's API description; see docs/openapi.md. */
export default defineCommand({
  meta: {
    name: 'make:postman',
    group: 'Generators',
    description: 'Postman collection of the routes (public/postman_collection.json): auth flow first, tests in every request',
    json: ['MakePostmanJson'],
  },
  args: {
    ...cwdArg,
    ...jsonArg,
    flow: { type: 'enum', description: 'Add ordered flows: crud (create, read, list, update, delete for each resource)', options: ['crud'] },
    output: { type: 'string', description: 'Write the collection there instead (relative to the current folder)', valueHint: 'file' },
    'base-url': { type: 'string', description: 'The baseUrl variable (default http://localhost:<PORT>)', valueHint: 'url' },
  },
  async run({ args, io, json }) {
    const project = projectFor(io, args.cwd)
    const port = loadConfig(project).port
    // PORT=0 is a free port chosen at start-up: http://localhost:0 would reach nothing.
    if (args['base-url'] === undefined && port === 0) {
      throw new CliError('E_BAD_OPTION', 'PORT=0 picks a free port at start-up: make:postman cannot know the baseUrl', {
        hint: 'pass the address svc serve printed: --base-url=http://127.0.0.1:<port>',
      })
    }
    const baseUrl = args['base-url'] ?? `http://localhost:${port}`
    const result = await writePostman(project, { cwd: io.cwd, output: args.output, baseUrl, crud: args.flow === 'crud' })
    if (args.json) return json(result)
    for (const file of result.written) printLine(io, `Wrote ${file}`)
    printLine(io, `${result.requests} requests in ${result.folders.length} folders: ${result.folders.join(', ')}.`)
    if (args.flow === 'crud') {
      printLine(io, result.flows.length > 0 ? `CRUD flows: ${result.flows.join(', ')}.` : 'No resource has the five CRUD routes a flow needs (svc make:crud <Name> makes one).')
    }
    printOpenApiWarnings(io, result.warnings)
    printNote(io, `Run it: npx newman run ${result.written[0]} --env-var baseUrl=${baseUrl}  (svc serve first)`)
  },
})
