/** The error that stops a start: a bad config file or environment variable, said in one message. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}
