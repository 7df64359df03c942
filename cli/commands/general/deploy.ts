import { defineCommand } from '../../command/define.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { colors, printLine } from '../../output/print.ts'
import { createProgress } from '../../output/progress.ts'
import { deployConfigPath, readDeployConfig, runDeploy, writeDeployConfig } from '../../project/deploy.ts'
import { projectFor } from '../../project/project.ts'

export default defineCommand({
  meta: { name: 'deploy', group: 'Deployment', description: 'Run the deployment steps of deploy.json in order, stopping at the first that fails', json: ['DeployJson'] },
  args: {
    ...cwdArg,
    ...jsonArg,
    init: { type: 'boolean', description: 'Write deploy.json with the usual steps: install, migrate --force, optimize, reload' },
    force: { type: 'boolean', description: 'With --init: replace an existing deploy.json' },
    'dry-run': { type: 'boolean', description: 'List the steps without running them' },
  },
  async run({ args, io, json }) {
    const project = projectFor(io, args.cwd)
    if (args.init) {
      const file = writeDeployConfig(project, args.force)
      const { steps } = readDeployConfig(project)
      if (args.json) return json({ file, action: 'initialised', steps: steps.map((step) => ({ ...step, status: 'skipped', exit_code: null, duration_ms: null })) })
      printLine(io, `Wrote ${file}:`)
      for (const step of steps) printLine(io, `  ${step.name}: ${step.run}`)
      return
    }
    const config = readDeployConfig(project)
    const file = deployConfigPath(project)
    if (args['dry-run']) {
      if (args.json) return json({ file, action: 'dry_run', steps: config.steps.map((step) => ({ ...step, status: 'skipped', exit_code: null, duration_ms: null })) })
      for (const [index, step] of config.steps.entries()) printLine(io, `${index + 1}. ${step.name}: ${step.run}`)
      return
    }
    const progress = createProgress(io, { label: 'Deploying', total: config.steps.length })
    const results = await runDeploy(project, io, config, progress, args.json).finally(() => progress.done())
    const failed = results.find((step) => step.status === 'failed')
    if (failed !== undefined) io.exitCode = failed.exit_code ?? 1
    if (args.json) return json({ file, action: failed ? 'failed' : 'deployed', steps: results })
    const color = colors(io)
    for (const step of results) {
      const mark = step.status === 'ok' ? color.green('✓') : step.status === 'failed' ? color.red('✗') : color.dim('-')
      const detail = step.status === 'skipped' ? 'not run' : `${step.status === 'failed' ? `exit ${step.exit_code}, ` : ''}${((step.duration_ms ?? 0) / 1000).toFixed(1)} s`
      printLine(io, `${mark} ${step.name} (${detail})`)
    }
    printLine(io, failed ? color.red(`Deploy stopped: ${failed.name} failed with exit code ${failed.exit_code}.`) : color.green('Deployed.'))
  },
})
