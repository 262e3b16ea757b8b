// The one error a bad setting raises: its message names the setting and what it accepts (docs/configuration.md),
// and the headless proxy exits 2 on it (src/proxy/cli.ts).

export class ConfigError extends Error {
  /** The setting the message is about, when it is about one. */
  constructor(
    message: string,
    readonly key?: string,
  ) {
    super(message);
    this.name = 'ConfigError';
  }
}
