/**
 * What each target is sent. direct and bare get what the upstream itself would receive (so they
 * measure the upstream's work); modelgate gets the client request and adds the translation.
 */

export type TargetName = 'direct' | 'bare' | 'modelgate';
export const targetNames: readonly TargetName[] = ['direct', 'bare', 'modelgate'];

export type ScenarioId = 'same-family' | 'cross-family' | 'cross-stream';

export interface HttpRequestSpec {
  method: 'POST';
  path: string;
  headers: Record<string, string>;
  body: string;
}

export interface Scenario {
  id: ScenarioId;
  title: string;
  stream: boolean;
  /** Sent to direct and bare: the request modelgate would send upstream. */
  upstream: HttpRequestSpec;
  /** Sent to modelgate by its client. */
  gateway: HttpRequestSpec;
}

export const gatewayKey = 'bench-key';

const prompt = 'Say hello to the benchmark in a few words.';
const messages = [{ role: 'user', content: prompt }];
// What modelgate's beta encoder sends for the same conversation (content as blocks), byte for byte.
const betaMessages = [{ role: 'user', content: [{ type: 'text', text: prompt }] }];
// Every scenario pins the output length, so the simulator's work is the same whichever way it is reached.
const maxTokens = 20;

const alphaHeaders = { 'content-type': 'application/json', authorization: 'Bearer x' };
const betaHeaders = { 'content-type': 'application/json', 'x-api-key': 'x', 'beta-version': '2023-06-01' };
const gatewayHeaders = { 'content-type': 'application/json', authorization: `Bearer ${gatewayKey}` };

function post(path: string, headers: Record<string, string>, body: Record<string, unknown>): HttpRequestSpec {
  return { method: 'POST', path, headers, body: JSON.stringify(body) };
}

function alphaBody(model: string, stream: boolean): Record<string, unknown> {
  return stream
    ? { model, messages, max_tokens: maxTokens, stream }
    : { model, messages, max_tokens: maxTokens };
}

function betaBody(model: string, stream: boolean): Record<string, unknown> {
  const body = { model, max_tokens: maxTokens, messages: betaMessages };
  return stream ? { ...body, stream } : body;
}

export const scenarios: readonly Scenario[] = [
  {
    id: 'same-family',
    title: 'same-family non-stream (A surface → A model)',
    stream: false,
    upstream: post('/v1/chat/completions', alphaHeaders, alphaBody('A-1', false)),
    gateway: post('/v1/chat/completions', gatewayHeaders, alphaBody('A-1', false)),
  },
  {
    id: 'cross-family',
    title: 'cross-family non-stream (A surface → B model)',
    stream: false,
    upstream: post('/v1/messages', betaHeaders, betaBody('B-1', false)),
    gateway: post('/v1/chat/completions', gatewayHeaders, alphaBody('B-1', false)),
  },
  {
    id: 'cross-stream',
    title: `cross-family stream, ${maxTokens} chunks (A surface → B model)`,
    stream: true,
    upstream: post('/v1/messages', betaHeaders, betaBody('B-1', true)),
    gateway: post('/v1/chat/completions', gatewayHeaders, alphaBody('B-1', true)),
  },
];

export const streamChunks = maxTokens;

export function requestFor(scenario: Scenario, target: TargetName): HttpRequestSpec {
  return target === 'modelgate' ? scenario.gateway : scenario.upstream;
}
