/**
 * The scripts of the Postman collection's requests (Postman's sandbox `pm`
 * API): tests of the status and of the envelope's `success`, and the steps
 * that carry values between requests (the tokens, a created id).
 */

export interface PostmanEvent {
  listen: 'test' | 'prerequest'
  script: { type: 'text/javascript'; exec: string[] }
}

export function testEvent(lines: string[]): PostmanEvent {
  return { listen: 'test', script: { type: 'text/javascript', exec: lines } }
}

export function prerequestEvent(lines: string[]): PostmanEvent {
  return { listen: 'prerequest', script: { type: 'text/javascript', exec: lines } }
}

/** The status must be `status`, and `success` must say so (no body to read for a 204). */
export function expectStatus(status: number): string[] {
  return [
    `pm.test('status is ${status}', function () {`,
    `  pm.response.to.have.status(${status});`,
    '});',
    ...expectSuccessField(),
  ]
}

/**
 * For a request whose outcome depends on data the collection cannot know
 * (an id, a role, a token from a mail): the status must be one the API
 * description documents for it (5xx never passes), and `success` must match it.
 */
export function expectDocumentedStatus(statuses: number[]): string[] {
  const documented = statuses.filter((status) => status < 500)
  return [
    `pm.test('status is one the description documents (${documented.join(', ')})', function () {`,
    `  pm.expect(${JSON.stringify(documented)}).to.include(pm.response.code);`,
    '});',
    ...expectSuccessField(),
  ]
}

function expectSuccessField(): string[] {
  return [
    "pm.test('success matches the status', function () {",
    '  if (pm.response.code === 204 || pm.response.code === 205 || pm.response.code === 304) return;',
    '  pm.expect(pm.response.json().success).to.eql(pm.response.code < 400);',
    '});',
  ]
}

/** Stores `data.<field>` of the answer in a collection variable, for the requests after it. */
export function storeData(fields: Record<string, string>): string[] {
  return [
    'if (pm.response.code < 400) {',
    '  var data = pm.response.json().data;',
    ...Object.entries(fields).flatMap(([variable, field]) => [
      `  pm.test('the answer carries data.${field}', function () { pm.expect(data).to.have.property('${field}'); });`,
      `  pm.collectionVariables.set('${variable}', String(data['${field}']));`,
    ]),
    '}',
  ]
}

/** `data.<field>` of the answer must equal the collection variable. */
export function expectDataEquals(field: string, variable: string): string[] {
  return [
    `pm.test('data.${field} is {{${variable}}}', function () {`,
    `  pm.expect(String(pm.response.json().data['${field}'])).to.eql(pm.collectionVariables.get('${variable}'));`,
    '});',
  ]
}
