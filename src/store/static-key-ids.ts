/**
 * Static keys' ids were their position in `MODELGATE_KEYS` (`static-1`, `static-2`…); they are now
 * derived from the key itself (`keys/client-keys.ts`, `staticKeyId`). At start, what the store
 * kept under a positional id — spend, ledger rows, their rollups, stored responses — is renamed to
 * the id of the key now at that position: the current list is the only mapping there is, so a list
 * reordered before this version first ran moves those rows with the position, as they were counted.
 * Once renamed no positional id is left, so later starts change nothing (idempotent). Both stores
 * run the same statements (positional parameters: `?` for SQLite, `$n` for PostgreSQL).
 */

/** The statements renaming one id, each taking (new id, old id) as its parameters 1 and 2. */
export function staticKeyRenames(parameter: (index: 1 | 2) => string): string[] {
  const renamed = parameter(1);
  const old = parameter(2);
  return [
    // A spend row already under the new id (an older version ran again after this one) is kept.
    `UPDATE key_spend SET key_id = ${renamed} WHERE key_id = ${old}
       AND NOT EXISTS (SELECT 1 FROM key_spend WHERE key_id = ${renamed})`,
    `UPDATE usage_ledger SET key_id = ${renamed} WHERE key_id = ${old}`,
    `UPDATE responses SET key_id = ${renamed} WHERE key_id = ${old}`,
    `UPDATE usage_rollup SET value = ${renamed} WHERE dimension = 'key' AND value = ${old}
       AND NOT EXISTS (SELECT 1 FROM usage_rollup AS taken WHERE taken.period = usage_rollup.period
         AND taken.dimension = 'key' AND taken.bucket = usage_rollup.bucket AND taken.value = ${renamed})`,
  ];
}
