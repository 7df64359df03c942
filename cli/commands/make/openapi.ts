import { defineCommand } from '../../command/define.ts'
import { apiDocsEnabled, DOCS_PATH } from '../../openapi/docs-page.ts'
import { printOpenApiWarnings } from '../../openapi/warnings-view.ts'
import { writeOpenApi } from '../../openapi/write.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { printLine, printNote } from '../../output/print.ts'
import { loadConfig } from '../../project/load-app.ts'
import { projectFor } from '../../project/project.ts'

/**
 * The app's OpenAPI 3.0.3 description, from the routes as `svc serve` loads
 * them and the schemas they declare; see docs/openapi.md.
 */
export default defineCommand({
  meta: {
    name: 'make:openapi',
    group: 'Generators',
    description: 'OpenAPI 3.0.3 description of the routes (docs/openapi.json), and the Swagger UI page',
    json: ['MakeOpenApiJson'],
  },
  args: {
    ...cwdArg,
    ...jsonArg,
    output: { type: 'string', description: 'Write the description there instead (relative to the current folder; .yaml or .yml writes YAML)', valueHint: 'file' },
    yaml: { type: 'boolean', description: 'Write YAML (docs/openapi.yaml unless --output names the file)' },
    'with-swagger': { type: 'boolean', description: `Also write public/docs.html: Swagger UI, served at ${DOCS_PATH} (no network needed)` },
    server: { type: 'string', description: 'The base URL listed in servers (default /: the origin serving the document)', valueHint: 'url' },
  },
  async run({ args, io, json }) {
    const project = projectFor(io, args.cwd)
    const result = await writeOpenApi(project, {
      cwd: io.cwd,
      output: args.output,
      yaml: args.yaml,
      withSwagger: args['with-swagger'],
      server: args.server,
    })
    if (args.json) return json(result)
    for (const file of result.written) printLine(io, `Wrote ${file}`)
    printLine(io, `OpenAPI ${result.openapi}: ${result.paths} paths, ${result.operations} operations, ${result.schemas.length} schemas.`)
    printOpenApiWarnings(io, result.warnings)
    if (args['with-swagger']) {
      const served = apiDocsEnabled(loadConfig(project))
      printNote(
        io,
        served
          ? `svc serve shows it at ${DOCS_PATH}.`
          : `The app does not serve ${DOCS_PATH} here (APP_ENV=production, or API_DOCS=false): set API_DOCS=true to serve it.`,
      )
    }
  },
})
