import { appPaths } from '../paths.ts'
import { defineTemplate } from '../template.ts'

export type JobOptions = Record<string, never>

declare module '../template.ts' {
  interface TemplateOptions {
    job: JobOptions
  }
}

/**
 * `app/jobs/<name>.ts`: a queued job (`defineJob`). Workers load every file of
 * app/jobs/ and find a job by its name, which the queue stores: keep it stable.
 */
export default defineTemplate('job', ({ names }) => {
  const jobName = [...names.folders, names.base.kebab].join('.')
  const payload = `${names.base.pascal}Payload`
  return {
    path: appPaths.job(names),
    contents: `/**
 * The ${jobName} job: \`await c.queue.dispatch(${names.base.camel}, { id })\`, run by \`svc queue:work\`.
 * Delivery is at least once (a job whose worker died runs again): make running it twice harmless.
 */
import { defineJob } from 'svc'

/** Stored as JSON: plain data only (a Date arrives as a string). */
export interface ${payload} {
  id: number
}

export const ${names.base.camel} = defineJob('${jobName}', {
  // queue: 'default', attempts: 3, backoff: { base: 1000, cap: 300_000 }, timeout: 60_000,
  async handle(payload: ${payload}, { job }) {
    console.info(\`${jobName} #\${job.id} (attempt \${job.attempt}): \${payload.id}\`)
  },
})
`,
  }
})
