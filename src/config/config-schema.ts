/**
 * The one configuration schema before its runtime shape: the settings (the file's sections with
 * the environment laid over them, defaults under both) and what only the environment gives, then
 * the checks that span fields. runtime-config.ts turns its output into `Config`.
 */
import { z } from 'zod';
import { refuse } from './cross-field.ts';
import { settingsSchema } from './file-schema.ts';
import { tracingEnvironmentSchema } from './observability-config.ts';

/** Settings only the environment gives: a config file cannot hold them. */
const environmentOnlySchema = z
  .object({
    /** MODELGATE_KEYS: client keys (plain; hashed on load, never logged). */
    clientKeys: z.array(z.string()).default([]),
    /** MODELGATE_UNLIMITED_KEYS: static key ids metered but never refused. */
    unlimitedKeys: z.array(z.string()).default([]),
    /** MODELGATE_ADMIN_KEY: opens `/admin/…`; unset keeps it closed. Never logged. */
    adminKey: z.string().min(16).optional(),
    /** MODELGATE_METRICS_TOKEN: a bearer token for scrapers besides the admin key. Never logged. */
    metricsToken: z.string().min(16).optional(),
    tracing: tracingEnvironmentSchema,
  })
  .prefault({});

export const checkedConfigSchema = z
  .object({
    // The file as written, checked alone: a bad value stays refused when a variable overrides it
    // (PORT=0 beside `server.port: eighty` is still a bad file). Its output is not used.
    file: settingsSchema,
    settings: settingsSchema,
    environmentOnly: environmentOnlySchema,
  })
  .superRefine(({ settings, environmentOnly }, context) => {
    const { adminKey, clientKeys } = environmentOnly;
    if (adminKey !== undefined && clientKeys.includes(adminKey))
      refuse(context, 'MODELGATE_ADMIN_KEY must differ from every client key in MODELGATE_KEYS');
    for (const [id, entry] of Object.entries(settings.limits.staticKeys))
      if (entry.unlimited !== false) checkStaticKeyId(context, id, 'limits.staticKeys', clientKeys.length);
    for (const id of environmentOnly.unlimitedKeys)
      checkStaticKeyId(context, id, 'MODELGATE_UNLIMITED_KEYS', clientKeys.length);
  });

export type CheckedConfig = z.output<typeof checkedConfigSchema>;

/** A static key is named by its place in MODELGATE_KEYS: `static-1`, `static-2`, … */
function checkStaticKeyId(context: z.RefinementCtx, id: string, where: string, staticCount: number): void {
  if (!/^static-[1-9]\d*$/.test(id))
    refuse(
      context,
      `${where}: ${id} is not a static key id (static-1, static-2, …: the keys' order in MODELGATE_KEYS)`,
    );
  else if (Number(id.slice('static-'.length)) > staticCount)
    refuse(context, `${where}: ${id} names no key (MODELGATE_KEYS has ${staticCount})`);
}
