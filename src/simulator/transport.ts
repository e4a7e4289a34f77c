/** The simulator as an in-process `UpstreamTransport`: the gateway's offline default upstream. */
import type { UpstreamTransport } from '../upstream/transport.ts';
import type { Simulator } from './simulator.ts';

export function createSimulatorTransport(simulator: Simulator): UpstreamTransport {
  return {
    send: (_baseUrl, request, signal) => {
      // Codecs may write header names in any case; the simulator reads lower-case ones, as node:http gives them.
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers)) headers[name.toLowerCase()] = value;
      return simulator.handle({ method: 'POST', path: request.path, headers, body: request.body }, signal);
    },
    close: () => Promise.resolve(),
  };
}
