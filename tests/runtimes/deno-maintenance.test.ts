/**
 * svc/deno's `maintenanceFile` looks at the file once as it is made: a Deno
 * process without read permission for it fails at start, naming the flag,
 * instead of answering every request 500. Deno's own calls are stood in for
 * here (the real runtime runs `svc down` in first-run.test.ts).
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { ConfigError } from '../../framework/config/config-error.ts'
import { maintenanceFile } from '../../framework/deno/index.ts'

class DenoError extends Error {
  constructor(name: string, message: string) {
    super(message)
    this.name = name
  }
}

function denoWhoseStatThrows(error: Error) {
  return {
    statSync: () => {
      throw error
    },
    readTextFileSync: () => '{}',
  }
}

afterEach(() => {
  vi.unstubAllGlobals()
})

describe("svc/deno's maintenanceFile", () => {
  it('without read permission for the file: a ConfigError at start naming MAINTENANCE_FILE and --allow-read', () => {
    vi.stubGlobal('Deno', denoWhoseStatThrows(new DenoError('NotCapable', 'Requires read access to "/srv/down.json", run again with the --allow-read flag')))
    let thrown: unknown
    try {
      maintenanceFile('/srv/down.json')
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(ConfigError)
    expect((thrown as ConfigError).variable).toBe('MAINTENANCE_FILE')
    expect((thrown as ConfigError).message).toContain('cannot look at /srv/down.json (Requires read access')
    expect((thrown as ConfigError).message).toContain('--allow-read')
  })

  it('no file yet is up, as on Node: the source is made and answers no maintenance', async () => {
    vi.stubGlobal('Deno', denoWhoseStatThrows(new DenoError('NotFound', 'No such file or directory (os error 2)')))
    const source = maintenanceFile('storage/maintenance.json')
    expect(await source()).toBeUndefined()
  })
})
