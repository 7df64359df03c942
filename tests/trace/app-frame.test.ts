/**
 * Where an exception is placed in a trace (`exception.location`): the first
 * frame of the app's own code, past svc's framework, svc's CLI (the
 * development server wraps the app's fetch in its request log),
 * node_modules and the runtime.
 */
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { appFrame } from '../../framework/trace/record-builder.ts'

const svcFile = (relative: string) => fileURLToPath(new URL(`../../${relative}`, import.meta.url))

describe('appFrame', () => {
  it("skips svc's framework and CLI frames, then names the app's", () => {
    const stack = [
      'HttpError: Forbidden',
      `    at requireRole (${svcFile('framework/auth/roles.ts')}:14:30)`,
      `    at async Object.fetch (${svcFile('cli/server/request-log.ts')}:16:24)`,
      '    at async file:///srv/app/node_modules/itty-router/index.mjs:1:200',
      '    at async node:internal/process/task_queues:95:5',
      '    at async responseTime (/srv/app/app/middleware/response-time.ts:6:20)',
    ].join('\n')
    expect(appFrame(stack)).toEqual({ file: '/srv/app/app/middleware/response-time.ts', line: 6, column: 20 })
  })

  it('reads file URLs, and gives null when no frame is the app’s', () => {
    expect(appFrame('Error: x\n    at handler (file:///srv/my%20app/routes/web.ts:3:9)')).toEqual({ file: '/srv/my app/routes/web.ts', line: 3, column: 9 })
    expect(appFrame(`Error: x\n    at f (${svcFile('cli/server/request-log.ts')}:1:1)\n    at g (node:internal/x:1:1)`)).toBeNull()
    expect(appFrame(undefined)).toBeNull()
  })
})
