/**
 * Model routing: catalog name or alias first; `alpha/<id>`, `beta/<id>`, `gamma/<id>` send an
 * uncatalogued upstream id to that family; then prefix aliases (`claude-*`: every name that starts
 * with `claude-`, the longest prefix winning), so a client's own default names (Claude Code asks for
 * a `claude-…` id of the day when no model is chosen) reach a catalog model without listing each.
 * The result never carries a host chosen by the request.
 */
import type { Config } from '../config/config.ts';
import { defaultPricing, type ModelEntry } from '../config/catalog.ts';
import { editDistance } from '../config/did-you-mean.ts';
import { missingUpstream } from '../config/upstream-presence.ts';
import { GatewayError } from '../ir/index.ts';
import { familyIds, isFamilyId } from '../surfaces/registry.ts';

/** Uncatalogued ids have no known figures: these keep B's required max_tokens sane. */
const uncataloguedContextWindow = Number.POSITIVE_INFINITY;
const uncataloguedMaxOutput = 4096;
/** Names suggested for an unknown model, at most; longer asked-for names get no suggestion (edit distance is quadratic). */
const maxSuggestions = 3;
const maxSuggestedFromChars = 120;

export class ModelResolver {
  readonly #byName = new Map<string, ModelEntry>();
  readonly #prefixed = new Map<string, ModelEntry>();
  /** Prefix aliases (`claude-*`), longest prefix first. */
  readonly #patterns: Array<{ prefix: string; entry: ModelEntry }> = [];
  /** Catalog models nothing serves (no upstream, simulator off): why, naming the missing setting. */
  readonly #unserved = new Map<string, string>();
  readonly #config: Config;

  constructor(config: Config) {
    this.#config = config;
    for (const entry of config.models) {
      this.#byName.set(entry.name, entry);
      const missing = missingUpstream(config, entry);
      if (missing !== undefined) this.#unserved.set(entry.name, missing);
    }
    for (const [alias, target] of Object.entries(config.aliases)) {
      const entry = this.#byName.get(target);
      if (entry === undefined) continue;
      if (isPrefixAlias(alias)) this.#patterns.push({ prefix: alias.slice(0, -1), entry });
      else this.#byName.set(alias, entry);
    }
    this.#patterns.sort((left, right) => right.prefix.length - left.prefix.length);
  }

  /** The catalog entry for `name`, or undefined when nothing routes it. */
  resolve(name: string): ModelEntry | undefined {
    const entry = this.#byName.get(name);
    if (entry !== undefined) return entry;
    const slash = name.indexOf('/');
    if (slash > 0) {
      const family = name.slice(0, slash);
      const upstreamModel = name.slice(slash + 1);
      if (isFamilyId(family) && isSafeUpstreamId(upstreamModel))
        return this.#prefixedEntry(name, family, upstreamModel);
    }
    for (const pattern of this.#patterns) if (name.startsWith(pattern.prefix)) return pattern.entry;
    return undefined;
  }

  /**
   * The 404 for a model nothing routes: the closest catalog names (a typo, a dated id, a vendor's
   * name for one the catalog spells differently) and how an uncatalogued model is reached.
   */
  unknownModel(name: string): GatewayError {
    const suggestions = this.#closest(name);
    const families = familyIds();
    const hint =
      (suggestions.length === 0
        ? ''
        : ` Did you mean ${suggestions.map((known) => `\`${known}\``).join(', ')}?`) +
      ` A model outside the catalog is reached as \`<family>/<upstream id>\` (${families.map((family) => `\`${family}/<id>\``).join(', ')}).`;
    return new GatewayError(
      'not_found',
      `The model \`${name}\` does not exist or is not served here.${hint}`,
      {
        param: 'model',
      },
    );
  }

  #closest(name: string): string[] {
    if (name.length === 0 || name.length > maxSuggestedFromChars) return [];
    const lower = name.toLowerCase();
    const allowed = Math.max(3, Math.floor(name.length / 2));
    const ranked: { known: string; distance: number }[] = [];
    for (const known of this.#byName.keys()) {
      const other = known.toLowerCase();
      // One containing the other (`gpt-4o` for `gpt-4o-2024-08-06`) is as close as a typo.
      const distance = lower.includes(other) || other.includes(lower) ? 1 : editDistance(lower, other);
      if (distance <= allowed) ranked.push({ known, distance });
    }
    ranked.sort((left, right) => left.distance - right.distance || left.known.localeCompare(right.known));
    return ranked.slice(0, maxSuggestions).map(({ known }) => known);
  }

  /** Catalog entries that something serves, aliases excluded, for `GET /v1/models`. */
  list(): ModelEntry[] {
    return [...new Set(this.#byName.values())].filter((entry) => !this.#unserved.has(entry.name));
  }

  /** Undefined when `entry` is served; else the 503's message naming the setting that is missing. */
  unserved(entry: ModelEntry): string | undefined {
    // A catalog model was decided once; an uncatalogued `family/id` goes to its family's upstream.
    return this.#byName.get(entry.name) === entry
      ? this.#unserved.get(entry.name)
      : missingUpstream(this.#config, entry);
  }

  #prefixedEntry(name: string, family: ModelEntry['family'], upstreamModel: string): ModelEntry {
    let entry = this.#prefixed.get(name);
    if (entry === undefined) {
      entry = {
        name,
        family,
        upstreamModel,
        contextWindow: uncataloguedContextWindow,
        maxOutputTokens: uncataloguedMaxOutput,
        pricing: defaultPricing(family, 0, 0),
        capabilities: { streaming: true, tools: true, vision: true },
      };
      // Bounded: a client cannot grow this map without limit.
      if (this.#prefixed.size < 10_000) this.#prefixed.set(name, entry);
    }
    return entry;
  }
}

/**
 * Upstream ids go into JSON bodies and (C) into a URL path segment, always encoded; still, refuse
 * anything that is not a plain id so no id can look like a path or carry control characters.
 */
export function isSafeUpstreamId(id: string): boolean {
  return (
    id.length > 0 &&
    id.length <= 200 &&
    /^[A-Za-z0-9][A-Za-z0-9._:@+-]*(\/[A-Za-z0-9][A-Za-z0-9._:@+-]*)*$/.test(id) &&
    !id.includes('..')
  );
}

/** `claude-*`: an alias for every model name that starts with `claude-`. */
export function isPrefixAlias(alias: string): boolean {
  return alias.length > 1 && alias.endsWith('*') && alias.indexOf('*') === alias.length - 1;
}
