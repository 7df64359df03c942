/**
 * One request before measuring: the server must answer what the scenario
 * expects, and svc's servers must send small JSON with Content-Length and
 * without chunked encoding. A failure stops the benchmark.
 */
import { request } from 'node:http'
import { isDeepStrictEqual } from 'node:util'
import type { Scenario } from '../scenarios.ts'
import { ID_PLACEHOLDER } from './load.ts'

export interface Answer {
  status: number
  headers: Record<string, string | string[] | undefined>
  text: string
}

export function send(url: string, scenario: Scenario, serverHeaders: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}${scenario.path}`,
      { method: scenario.method ?? 'GET', headers: { ...serverHeaders, ...scenario.headers } },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }))
        res.on('error', reject)
      },
    )
    req.on('error', reject)
    req.end(scenario.body?.replaceAll(ID_PLACEHOLDER, `check${Date.now()}${Math.random().toString(36).slice(2)}`))
  })
}

/** The problems with the answer, none when it is right. */
export function checkAnswer(scenario: Scenario, answer: Answer): string[] {
  const problems: string[] = []
  if (answer.status !== scenario.expect.status) problems.push(`status ${answer.status}, expected ${scenario.expect.status}`)
  if (scenario.expect.json !== undefined) {
    let json: unknown
    try {
      json = JSON.parse(answer.text)
    } catch {
      problems.push(`body is not JSON: ${answer.text.slice(0, 200)}`)
    }
    if (json !== undefined && !isDeepStrictEqual(json, scenario.expect.json)) {
      problems.push(`body ${answer.text.slice(0, 200)}, expected ${JSON.stringify(scenario.expect.json)}`)
    }
  }
  if (scenario.checkWire) {
    const length = answer.headers['content-length']
    if (length === undefined) problems.push('no Content-Length header')
    else if (Number(length) !== Buffer.byteLength(answer.text)) problems.push(`Content-Length ${length} but ${Buffer.byteLength(answer.text)} bytes`)
    if (answer.headers['transfer-encoding'] !== undefined) problems.push(`Transfer-Encoding: ${answer.headers['transfer-encoding']}`)
  }
  return problems
}
