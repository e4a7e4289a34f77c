/** Errors a store over the network adds to the embedded store's. */

/**
 * The store's server could not be reached (or stopped answering): the admin API answers 503, the
 * CLI exits 1, and nothing on a request's path ever waits for it. The message names the server
 * without its password.
 */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError';
}
