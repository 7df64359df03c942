import { resolve } from 'node:path'
import { defineCommand } from '../../command/define.ts'
import { projectArgs } from '../../generators/project/args.ts'
import { makeProject, printCreated } from '../../generators/project/make-project.ts'
import { printWizardDone, resolveAnswers } from '../../generators/project/wizard.ts'

/**
 * The onboarding wizard: asks what `svc new` takes as options, then creates
 * the project. Scripted: every question has an option, and `--yes` takes the
 * defaults (`svc start --name demo --yes`).
 */
export default defineCommand({
  meta: { name: 'start', group: 'Getting started', description: 'Interactive onboarding: asks a few questions, then creates a project', json: ['NewProjectJson'] },
  args: {
    name: { type: 'string', description: 'Project name, and the folder to create (default my-api)', valueHint: 'name' },
    ...projectArgs,
    yes: { type: 'boolean', alias: 'y', description: 'Ask nothing: options given, defaults for the rest' },
  },
  async run({ args, io, json }) {
    const cwd = resolve(io.cwd, args.cwd ?? '.')
    const terminal = io.stdin.isTTY === true && io.stdout.isTTY === true
    const { answers, asked } = await resolveAnswers(
      { name: args.name, database: args.database, jwt: args.jwt, example: args.example },
      { io, cwd, yes: args.yes, cannotAsk: args.json ? '--json prints one document, no prompts' : terminal ? undefined : 'stdin is not a terminal' },
    )
    const project = await makeProject(answers, { io, cwd, svc: args.svc })
    if (args.json) return json(project)
    if (asked) return printWizardDone(project, io)
    printCreated(io, project)
  },
})
