// The environment every assistant-CLI process gets, chat children and the health probe alike, so that the probe
// sees the same login the children do and neither sees the proxy's own secrets (docs/tool-mode.md).

/** Environment variables of the proxy itself that the CLI must not see. */
const proxyOwnSecrets = ['PROXY_ACCESS_KEY'] as const;

/** `base` without the proxy's own secrets, with PATH replaced by `envPath` (a GUI launch's login-shell PATH). */
export function cliChildEnv(base: NodeJS.ProcessEnv, envPath?: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base };
  for (const name of proxyOwnSecrets) delete env[name];
  if (envPath) env.PATH = envPath;
  return env;
}
