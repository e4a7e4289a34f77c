/**
 * The PostgreSQL connection pool, loaded only when MODELGATE_DATABASE_URL is set (`pg` is imported
 * here, dynamically, and nowhere else). Every query goes through `query`, which turns "the server
 * cannot be reached" into a `StoreUnavailableError` naming the server without its password.
 */
import type { Pool, QueryResultRow } from 'pg';
import type { Logger } from '../../log/logger.ts';
import { redactUrl } from '../database-url.ts';
import { StoreUnavailableError } from '../store-errors.ts';

export interface PgOptions {
  /** How long to wait for a connection (a dead server must not hold a caller for long). */
  connectTimeoutMs?: number;
  /** Server-side limit on one statement. */
  statementTimeoutMs?: number;
  /** Connections per process. */
  maxConnections?: number;
}

/** The pool and what every PostgreSQL store part needs with it. */
export interface PgConnection {
  readonly pool: Pool;
  /** `postgres://user@host:port/db`: the URL without its password, for messages. */
  readonly location: string;
  query<Row extends QueryResultRow>(text: string, values?: readonly unknown[]): Promise<Row[]>;
  /** Runs `work` in one transaction on one connection (rolled back when it throws). */
  transaction<T>(work: (query: PgConnection['query']) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** int8 (counts, sums of integers, bigint times) and numeric (sums) read as numbers, not strings. */
const int8 = 20;
const numeric = 1700;

export async function connectPostgres(
  url: string,
  logger: Logger | undefined,
  options: PgOptions = {},
): Promise<PgConnection> {
  const pg = (await import('pg')).default;
  const location = redactUrl(url);
  const types = new pg.TypeOverrides();
  types.setTypeParser(int8, Number);
  types.setTypeParser(numeric, Number);
  const pool = new pg.Pool({
    connectionString: url,
    max: options.maxConnections ?? 4,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
    idleTimeoutMillis: 30_000,
    statement_timeout: options.statementTimeoutMs ?? 15_000,
    application_name: 'modelgate',
    types,
  });
  // An idle connection the server dropped (a restart) must not take the process down.
  pool.on('error', (error) => {
    logger?.warn('PostgreSQL connection lost', { store: location, cause: error.message });
  });
  const run = async <Row extends QueryResultRow>(
    client: Pick<Pool, 'query'>,
    text: string,
    values?: readonly unknown[],
  ): Promise<Row[]> => {
    try {
      return (await client.query<Row>(text, values === undefined ? undefined : [...values])).rows;
    } catch (error) {
      throw unavailable(error, location) ?? error;
    }
  };
  return {
    pool,
    location,
    query: (text, values) => run(pool, text, values),
    async transaction(work) {
      let client;
      try {
        client = await pool.connect();
      } catch (error) {
        throw unavailable(error, location) ?? error;
      }
      // A checked-out client is not the pool's to watch: the server going away between two of the
      // transaction's queries is an 'error' event on it, which unheard would take the process down.
      // An object, not `let`s: the listener's assignments stay visible to the checker.
      const state: { lost: Error | undefined; broken: boolean } = { lost: undefined, broken: false };
      const onLost = (error: Error): void => {
        state.lost = error;
        state.broken = true;
      };
      client.on('error', onLost);
      const query = async <Row extends QueryResultRow>(
        text: string,
        values?: readonly unknown[],
      ): Promise<Row[]> => {
        if (state.lost !== undefined) throw connectionLost(state.lost, location);
        return run<Row>(client, text, values);
      };
      try {
        await query('BEGIN');
        const result = await work(query);
        await query('COMMIT');
        return result;
      } catch (error) {
        if (!state.broken)
          await run(client, 'ROLLBACK').catch(() => {
            state.broken = true;
          });
        throw error;
      } finally {
        client.off('error', onLost);
        client.release(state.broken);
      }
    },
    close: () => pool.end(),
  };
}

/** The connection a transaction held was lost: the store is unavailable, whatever the error said. */
function connectionLost(error: Error, location: string): StoreUnavailableError {
  return (
    unavailable(error, location) ??
    new StoreUnavailableError(`PostgreSQL at ${location} is unreachable (${shortCause(error)})`)
  );
}

/** Connection-level failures (refused, reset, timed out, the server shutting down): not the query's fault. */
function unavailable(error: unknown, location: string): StoreUnavailableError | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = (error as { code?: unknown }).code;
  const connectionCodes = ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH'];
  const serverGone =
    typeof code === 'string' && (code.startsWith('08') || code === '57P01' || code === '57P03');
  const lost =
    /timeout|terminated|Connection terminated|not queryable|ended|closed/i.test(error.message) &&
    code === undefined;
  if ((typeof code === 'string' && connectionCodes.includes(code)) || serverGone || lost)
    return new StoreUnavailableError(`PostgreSQL at ${location} is unreachable (${shortCause(error)})`);
  return undefined;
}

function shortCause(error: Error): string {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : error.message.slice(0, 120);
}
