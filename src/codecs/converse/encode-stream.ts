/**
 * Canonical events → ConverseStream events, written as the SSE the provider re-frames AWS's event
 * stream into (`event: <eventType>`, `data: <payload>`): what the simulator answers a Converse call
 * with, and what this codec's decoder reads back.
 */
import type { ResponseContext, StreamEncoder } from '../codec.ts';
import type { StreamEvent } from '../../ir/index.ts';
import { sseEvent } from '../../sse/write-sse.ts';
import { encodeError } from './errors.ts';
import { encodeStopReason } from './finish-reason.ts';
import { encodeUsage } from './usage.ts';

function event(type: string, payload: object): string {
  return sseEvent(type, JSON.stringify(payload));
}

/** In-stream exception event names by the error's `x-amzn-errortype`. */
function exceptionEvent(type: string): string {
  const name = `${type.charAt(0).toLowerCase()}${type.slice(1)}`;
  return ['throttlingException', 'validationException', 'serviceUnavailableException'].includes(name)
    ? name
    : 'internalServerException';
}

export class ConverseStreamEncoder implements StreamEncoder {
  encode(streamEvent: StreamEvent): string {
    switch (streamEvent.type) {
      case 'message-start':
        return event('messageStart', { role: 'assistant' });
      case 'text-start':
        return '';
      case 'text-delta':
        return event('contentBlockDelta', {
          contentBlockIndex: streamEvent.index,
          delta: { text: streamEvent.text },
        });
      case 'tool-call-start':
        return event('contentBlockStart', {
          contentBlockIndex: streamEvent.index,
          start: { toolUse: { toolUseId: streamEvent.id, name: streamEvent.name } },
        });
      case 'tool-call-delta':
        return event('contentBlockDelta', {
          contentBlockIndex: streamEvent.index,
          delta: { toolUse: { input: streamEvent.argumentsDelta } },
        });
      case 'reasoning-start':
        return '';
      case 'reasoning-delta':
        return event('contentBlockDelta', {
          contentBlockIndex: streamEvent.index,
          delta: { reasoningContent: { text: streamEvent.text } },
        });
      case 'reasoning-end': {
        const { index, signature } = streamEvent;
        const signed =
          signature === undefined
            ? ''
            : event('contentBlockDelta', {
                contentBlockIndex: index,
                delta: { reasoningContent: { signature } },
              });
        return signed + event('contentBlockStop', { contentBlockIndex: index });
      }
      case 'text-end':
      case 'tool-call-end':
        return event('contentBlockStop', { contentBlockIndex: streamEvent.index });
      case 'finish':
        return event('messageStop', { stopReason: encodeStopReason(streamEvent.finishReason) });
      case 'usage':
        return '';
      case 'message-end':
        return event('metadata', { usage: encodeUsage(streamEvent.usage), metrics: { latencyMs: 0 } });
      case 'error': {
        const wire = encodeError(streamEvent.error);
        return event(exceptionEvent(wire.headers['x-amzn-errortype'] ?? ''), wire.body);
      }
    }
  }
}

export function createStreamEncoder(_context: ResponseContext): StreamEncoder {
  return new ConverseStreamEncoder();
}
