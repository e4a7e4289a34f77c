/**
 * Histogram bucket boundaries, in seconds: the OpenTelemetry GenAI conventions' recommended
 * boundaries, each extended at the top for long reasoning calls (minutes of thinking before the
 * first token, answers that stream for a quarter of an hour) so those land in real buckets instead
 * of all in +Inf.
 */

/** `gen_ai.server.request.duration` and `gen_ai.client.operation.duration`: 10 ms … 81.92 s, then to ~22 min. */
export const durationBounds: readonly number[] = [
  0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
  // Extended: reasoning calls.
  163.84, 327.68, 655.36, 1310.72,
];

/** `gen_ai.server.time_to_first_token`: 1 ms … 10 s, then to 10 min (a reasoning model thinks first). */
export const timeToFirstTokenBounds: readonly number[] = [
  0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10,
  // Extended: reasoning calls.
  20, 40, 80, 160, 320, 640,
];

/** `gen_ai.server.time_per_output_token`: 10 ms … 2.5 s, with finer steps below for fast models. */
export const timePerOutputTokenBounds: readonly number[] = [
  // Extended: today's fast models stream a token every few milliseconds.
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1, 2.5,
];

/** The gateway's own time in a request (no convention): 50 µs … 1 s. */
export const overheadBounds: readonly number[] = [
  0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
];
