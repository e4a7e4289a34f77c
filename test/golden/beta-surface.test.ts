/**
 * Golden transcripts for the beta surface against every family, streaming and not: tool calls
 * (single, parallel, after text), tool results (error and image included), image input, and a
 * cached system prompt. See test-kit.ts for what is recorded and how to update.
 */
import { goldenSuite } from './test-kit.ts';
import { scenarioNames } from './scenarios.ts';

goldenSuite('beta', scenarioNames);
