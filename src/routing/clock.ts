/** Time and randomness for routing state (breakers, weights, cooling), injected so policies are tested without sleeping. */
export interface RoutingClock {
  /** Unix milliseconds. */
  now(): number;
  /** In [0, 1). */
  random(): number;
}

export const systemClock: RoutingClock = { now: Date.now, random: Math.random };
