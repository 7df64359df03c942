import { defineCommand } from '../../command/define.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { colors, printLine, printNote } from '../../output/print.ts'
import { createProgress } from '../../output/progress.ts'
import { loadConfig } from '../../project/load-app.ts'
import { projectFor } from '../../project/project.ts'
import { appBaseUrl, buildRequest, loopStats, printExchange, printLoop, requestJson } from '../../http-client/api-test.ts'
import { send, type Exchange } from '../../http-client/send.ts'
import { sessionToken, type SessionContext } from '../../http-client/session.ts'
import { targetBase } from '../../trace/replay.ts'

export default defineCommand({
  meta: {
    name: 'api:test',
    alias: 't',
    group: 'Testing',
    description: 'Send a JSON request to the running app and show status, time, trace id and body',
    json: ['ApiTestJson', 'ApiTestLoopJson'],
  },
  args: {
    method: { type: 'positional', description: 'GET, POST, PUT, PATCH, DELETE (left out: GET, or POST when fields are given)', valueHint: 'METHOD' },
    path: { type: 'positional', required: false, description: 'Path (/api/v1/posts) or full URL', valueHint: 'path' },
    items: {
      type: 'positional',
      required: false,
      multiple: true,
      description: 'name=value (typed body field), name:=json, name==value (query), Header:value',
      valueHint: 'item',
    },
    ...cwdArg,
    ...jsonArg,
    as: { type: 'string', description: 'Send as this user: logs in (registers in development) and keeps the token in storage/tokens/', valueHint: 'name|email' },
    loop: { type: 'number', description: 'Send it N times and print min, median, p95 and max', valueHint: 'n', integer: true, min: 1, max: 100_000 },
    url: { type: 'string', description: 'The server: http://host:port, or :port on this machine (default: HOST and PORT from .env)', valueHint: 'url' },
  },
  async run({ args, io, json }) {
    const project = projectFor(io, args.cwd)
    const config = loadConfig(project)
    // `--url=:9090` is this machine (httpie's shorthand).
    const base = args.url === undefined ? appBaseUrl(config) : targetBase({ url: /^:\d+$/.test(args.url) ? `127.0.0.1${args.url}` : args.url })
    const request = buildRequest(base, args.method, args.path, args.items)
    const session: SessionContext = {
      storageDir: project.storageDir,
      baseUrl: new URL(request.url).origin,
      env: config.env,
      password: io.env.SVC_AS_PASSWORD || undefined,
      note: (text) => printNote(io, text),
    }
    const as = args.as
    const exchange = async (): Promise<Exchange> => {
      if (as === undefined) return send(request)
      const authorized = (token: string) => ({ ...request, headers: [...request.headers, ['authorization', `Bearer ${token}`] as [string, string]] })
      const first = await send(authorized(await sessionToken(session, as)))
      // The token was refused (RFC 6750's invalid_token: a logout, a new secret): one new token, sent once more.
      // Another 401 (a handler's own) is the answer: the request is not sent twice.
      const refused = first.status === 401 && /invalid_token/.test(first.headers['www-authenticate'] ?? '')
      return refused ? send(authorized(await sessionToken(session, as, true))) : first
    }

    if (args.loop === undefined) {
      const answer = await exchange()
      if (args.json) return json(requestJson(request, as, answer))
      return printExchange(io, request, as, answer)
    }
    const times: number[] = []
    const statuses: Record<string, number> = {}
    let last: Exchange | undefined
    const progress = createProgress(io, { total: args.loop, label: `${request.method} ${new URL(request.url).pathname} x ${args.loop}` })
    try {
      for (let i = 0; i < args.loop && !io.signal.aborted; i++) {
        last = await exchange()
        times.push(last.durationMs)
        statuses[last.status] = (statuses[last.status] ?? 0) + 1
        progress.tick()
      }
    } finally {
      progress.done()
    }
    const result = { request: { method: request.method, url: request.url, as: as ?? null }, loop: { ...loopStats(times), statuses }, last: { status: last!.status, trace_id: last!.traceId } }
    if (args.json) return json(result)
    printLoop(io, result, colors(io))
    if (times.length < args.loop) printLine(io, `stopped after ${times.length} of ${args.loop}`)
  },
})
