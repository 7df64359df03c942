/** The jobs a worker can run, by name: what it looks up for each job it reserves. */
import { isJobDefinition, type JobDefinition } from './job.ts'

export interface JobRegistry {
  get(name: string): JobDefinition<never> | undefined
  names(): string[]
}

/** @example const jobs = jobRegistry([sendWelcome, mailJob]) */
export function jobRegistry(definitions: Iterable<JobDefinition<never>>): JobRegistry {
  const byName = new Map<string, JobDefinition<never>>()
  for (const definition of definitions) {
    if (!isJobDefinition(definition)) throw new TypeError('jobRegistry: every entry must come from defineJob()')
    const known = byName.get(definition.name)
    if (known !== undefined && known !== definition) throw new TypeError(`Two jobs are named "${definition.name}": job names must be unique`)
    byName.set(definition.name, definition)
  }
  return {
    get: (name) => byName.get(name),
    names: () => [...byName.keys()].sort(),
  }
}
