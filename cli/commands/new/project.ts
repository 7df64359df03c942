import { resolve } from 'node:path'
import { defineCommand } from '../../command/define.ts'
import { projectArgs } from '../../generators/project/args.ts'
import { makeProject, printCreated } from '../../generators/project/make-project.ts'

/**
 * A standalone project, ready for `npm install && npm start`. `svc start`
 * asks the same questions interactively; here they are options, with defaults.
 */
export default defineCommand({
  meta: { name: 'new', alias: 'new:project', group: 'Getting started', description: 'Scaffold a new project folder (routes, app, migrations, tests, .env)', json: ['NewProjectJson'] },
  args: {
    name: { type: 'positional', description: 'The folder to create; its name is the package name (my-api)', valueHint: 'name' },
    ...projectArgs,
  },
  async run({ args, io, json }) {
    const example = args.example === undefined || args.example === 'none' ? null : args.example
    const project = await makeProject({ folder: args.name, database: args.database ?? '', jwt: args.jwt ?? 'HS256', example }, { io, cwd: resolve(io.cwd, args.cwd ?? '.'), svc: args.svc })
    if (args.json) return json(project)
    printCreated(io, project)
  },
})
