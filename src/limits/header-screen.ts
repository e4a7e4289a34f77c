/**
 * The admission checks that need no body: run from the headers, before the body is read (and
 * before `100 Continue`), so a key that is out of budget or out of requests cannot make the
 * gateway read, parse or count a byte of what it sends. Only certain refusals are made here — what
 * `admit` would refuse whatever the body holds — with the same errors and rate-limit headers;
 * everything else waits for the body. Static keys are never refused, so they skip it.
 */
import type { ScreenQuery } from './admission-control.ts';
import { familyIds } from '../surfaces/registry.ts';
import { GatewayError, type FamilyId } from '../ir/index.ts';
import type { ClientKey, ClientKeys } from '../keys/client-keys.ts';
import { AdmissionRefusal } from '../gateway/admission.ts';
import type { ResponseHeaders } from '../gateway/response-sink.ts';

import { modelDenied, overBudget, overPeriodBudget } from './refusals.ts';
import { periodAccount, periodWindow } from '../keys/budget-period.ts';
import type { LedgerSink } from '../usage/ledger.ts';
import { headerRefusalRow } from '../usage/ledger-rows.ts';
import type { BudgetStore } from './budgets.ts';
import type { AnyRequestWait, RateLimiter } from './rate-limiter.ts';

export interface ScreenDependencies {
  keys: ClientKeys;
  limiter: RateLimiter;
  budgets: BudgetStore;
  ledger: LedgerSink;
  /** The family of a catalog model, by name. */
  familyOf: (model: string) => FamilyId | undefined;
  /** Unix milliseconds. */
  clock: () => number;
}

export function createHeaderScreen(
  dependencies: ScreenDependencies,
): (query: ScreenQuery) => Promise<GatewayError | undefined> | undefined {
  const { keys, limiter, budgets, clock } = dependencies;
  /** Per key object (a reload makes a new one): the families of the models it may call. */
  const familiesByKey = new WeakMap<ClientKey, readonly FamilyId[]>();
  const familiesOf = (key: ClientKey): readonly FamilyId[] => {
    if (key.models === undefined) return familyIds();
    let families = familiesByKey.get(key);
    if (families === undefined) {
      const found = new Set<FamilyId>();
      for (const model of key.models) {
        const family = dependencies.familyOf(model);
        if (family !== undefined) found.add(family);
      }
      families = [...found];
      familiesByKey.set(key, families);
    }
    return families;
  };

  const screen = async (query: ScreenQuery): Promise<GatewayError | undefined> => {
    const key = keys.byId(query.clientId);
    if (key === undefined) return new GatewayError('authentication', 'Invalid or missing API key');
    if (key.static && key.budgetUsd === undefined && key.periodBudget === undefined) return undefined;
    const now = clock();
    const { entry, surface } = query;
    const families = entry === undefined ? familiesOf(key) : [entry.family];
    // The family whose windows an early refusal describes: the model's, else the surface's own.
    const own = surface.family;
    const shown = entry?.family ?? (families.includes(own) ? own : (families[0] ?? own));
    const headers: ResponseHeaders = {};
    const report = async (): Promise<void> => {
      Object.assign(headers, surface.rateLimitHeaders(await limiter.state(key, shown, now)));
    };
    if (entry !== undefined && key.models !== undefined && !key.models.has(entry.name)) {
      await report();
      return new AdmissionRefusal(modelDenied(surface, entry.name), headers);
    }
    if (key.budgetUsd !== undefined) {
      const spent = budgets.spent(key.id);
      if (spent >= key.budgetUsd) {
        await report();
        headers['x-should-retry'] = 'false';
        return new AdmissionRefusal(overBudget(spent, key.budgetUsd), headers);
      }
    }
    const period = key.periodBudget;
    if (period !== undefined) {
      const spent = budgets.spent(periodAccount(key.id, periodWindow(period.period, now)));
      if (spent >= period.usd) {
        await report();
        headers['x-should-retry'] = 'false';
        return new AdmissionRefusal(overPeriodBudget(spent, period, now), headers);
      }
    }
    let soonest: { family: FamilyId; wait: AnyRequestWait } | undefined;
    let shownState: AnyRequestWait['state'] | undefined;
    for (const family of families) {
      const wait = await limiter.waitForAny(key, family, now);
      if (wait.waitMs <= 0) return undefined;
      if (family === shown) shownState = wait.state;
      if (soonest === undefined || wait.waitMs < soonest.wait.waitMs) soonest = { family, wait };
    }
    if (soonest === undefined) return undefined;
    Object.assign(headers, surface.rateLimitHeaders(shownState ?? soonest.wait.state));
    const seconds = Math.max(1, Math.ceil(soonest.wait.waitMs / 1000));
    const where =
      families.length === 1
        ? `on the ${soonest.family} family: limit ${limitOf(limiter, key, soonest.family, soonest.wait.dimension)}`
        : `on every family this key may call (${families.join(', ')})`;
    const limited = new GatewayError(
      'rate_limited',
      `Rate limit reached for ${soonest.wait.dimension} per minute ${where}. Try again in ${seconds}s.`,
      { retryAfterSeconds: seconds },
    );
    return new AdmissionRefusal(limited, headers);
  };
  // A refusal for a model the path named gets its ledger row, as `admit`'s refusals do.
  const screenAndRecord = async (query: ScreenQuery): Promise<GatewayError | undefined> => {
    const refusal = await screen(query);
    const { entry } = query;
    if (refusal !== undefined && entry !== undefined && refusal.kind !== 'authentication') {
      const status = query.surface.encodeError(refusal).status;
      dependencies.ledger.append(
        headerRefusalRow(query.clientId, entry, query.stream, status, query.context, refusal, clock()),
      );
    }
    return refusal;
  };
  return (query) => {
    // What `screen` passes at once (a static key without a budget: nothing to ask a store), passed
    // with no promise and no turn of the event loop: the common request's case.
    const key = keys.byId(query.clientId);
    if (key?.static === true && key.budgetUsd === undefined && key.periodBudget === undefined)
      return undefined;
    return screenAndRecord(query);
  };
}

function limitOf(
  limiter: RateLimiter,
  key: ClientKey,
  family: FamilyId,
  dimension: 'requests' | 'tokens',
): number {
  const limits = limiter.limitsFor(key, family);
  return dimension === 'requests' ? limits.requestsPerMinute : limits.tokensPerMinute;
}
