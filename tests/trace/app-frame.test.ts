/**
 * Where an exception is placed in a trace (`exception.location`): the first
 * frame of the app's own code, past svc's framework, svc's CLI (the
 * development server wraps the app's fetch in its request log),
 * node_modules and the runtime; none when svc threw in its own middleware
 * pipeline (an app middleware further down only awaited next()).
 */
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { appFrame } from '../../framework/trace/record-builder.ts'

const svcFile = (relative: string) => fileURLToPath(new URL(`../../${relative}`, import.meta.url))

describe('appFrame', () => {
  it("skips svc's framework and CLI frames, node_modules and the runtime, then names the app frame that called what threw", () => {
    const stack = [
      'HttpError: Not Found',
      `    at abort (${svcFile('framework/http/errors.ts')}:14:30)`,
      '    at async file:///srv/app/node_modules/some-lib/index.mjs:1:200',
      '    at async node:internal/process/task_queues:95:5',
      '    at async showPost (/srv/app/app/controllers/posts.ts:12:5)',
      `    at async runLayer (${svcFile('framework/middleware/compose.ts')}:37:38)`,
      `    at async Object.fetch (${svcFile('cli/server/request-log.ts')}:16:24)`,
    ].join('\n')
    expect(appFrame(stack)).toEqual({ file: '/srv/app/app/controllers/posts.ts', line: 12, column: 5 })
  })

  // A 401 of the auth middleware (as `svc new --example=Post` traced it): the app's response-time middleware is next
  // on the stack only because it awaited next(). It threw nothing, so it is not named; svc why names the route instead.
  it("gives null when svc threw in its own middleware pipeline, past which an app middleware only awaited next()", () => {
    const unauthenticated = [
      'HttpError: Unauthenticated',
      `    at unauthenticated (${svcFile('framework/auth/middleware.ts')}:8:12)`,
      `    at auth (${svcFile('framework/auth/middleware.ts')}:34:19)`,
      `    at runLayer (${svcFile('framework/middleware/compose.ts')}:37:38)`,
      `    at next (${svcFile('framework/middleware/compose.ts')}:27:34)`,
      '    at responseTime (/srv/app/app/middleware/response-time.ts:6:26)',
    ].join('\n')
    const invalid = [
      'ValidationError: The given data was invalid.',
      `    at validateInput (${svcFile('framework/validation/route-input.ts')}:35:19)`,
      '    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)',
      `    at async settle (${svcFile('framework/middleware/compose.ts')}:13:31)`,
      '    at async responseTime (/srv/app/app/middleware/response-time.ts:6:20)',
    ].join('\n')
    expect(appFrame(unauthenticated)).toBeNull()
    expect(appFrame(invalid)).toBeNull()
  })

  it("names a handler or middleware that threw, even when it runs inside svc's pipeline", () => {
    const stack = [
      'Error: boom',
      '    at greet (/srv/app/app/controllers/greetings.ts:9:11)',
      `    at runLayer (${svcFile('framework/middleware/compose.ts')}:37:38)`,
      '    at async responseTime (/srv/app/app/middleware/response-time.ts:6:20)',
    ].join('\n')
    expect(appFrame(stack)).toEqual({ file: '/srv/app/app/controllers/greetings.ts', line: 9, column: 11 })
  })

  it('reads file URLs, and gives null when no frame is the app’s', () => {
    expect(appFrame('Error: x\n    at handler (file:///srv/my%20app/routes/web.ts:3:9)')).toEqual({ file: '/srv/my app/routes/web.ts', line: 3, column: 9 })
    expect(appFrame(`Error: x\n    at f (${svcFile('cli/server/request-log.ts')}:1:1)\n    at g (node:internal/x:1:1)`)).toBeNull()
    expect(appFrame(undefined)).toBeNull()
  })
})
