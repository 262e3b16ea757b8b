// The environment every assistant-CLI process the proxy starts gets, chat children and the health probe alike, so that
// the probe sees the same login the children do and neither sees the proxy's own secrets (docs/security.md "Another
// local user or process"). Built once per proxy (services.ts, Services.cliEnv) and once per diagnose run.

/** Environment variables of the proxy itself that the CLI must not see. */
const proxyOwnSecrets = ['PROXY_ACCESS_KEY'] as const;

/** `base` (default this process's environment) without the proxy's own secrets, with PATH replaced by `envPath`
 * (a GUI launch's login-shell PATH). */
export function cliEnv(base: NodeJS.ProcessEnv = process.env, envPath?: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base };
  for (const name of proxyOwnSecrets) delete env[name];
  if (envPath) env.PATH = envPath;
  return env;
}
