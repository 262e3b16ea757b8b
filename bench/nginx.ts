// nginx from Debian's packages as the comparison reverse proxy: a config written into a temporary
// directory (proxy_pass to the simulator, buffering off both ways, HTTP/1.1 with a keep-alive upstream pool), run
// in the foreground as our child on 127.0.0.1 with a free port. When nginx is missing, it is installed with apt when
// we run as root, else the run stops with the command to type.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { freePort, waitForPort } from './ports.js';

const candidates = ['/usr/sbin/nginx', '/usr/bin/nginx', '/usr/local/sbin/nginx', '/usr/local/nginx/sbin/nginx'];

function findNginx(): string | undefined {
  for (const c of candidates) if (existsSync(c)) return c;
  const which = spawnSync('sh', ['-c', 'command -v nginx'], { encoding: 'utf8' });
  const found = which.stdout.trim();
  return which.status === 0 && found ? found : undefined;
}

function apt(args: string[]): boolean {
  const r = spawnSync('apt-get', args, {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  return r.status === 0;
}

/**
 * Installs nginx with apt. Package scripts would start a system nginx on port 80; a policy-rc.d that refuses
 * service starts (the usual container set-up) is put in place for the install when none exists, then removed.
 */
function installNginx(log: (line: string) => void): void {
  const policy = '/usr/sbin/policy-rc.d';
  const ownPolicy = !existsSync(policy);
  if (ownPolicy)
    writeFileSync(policy, '#!/bin/sh\n# temporary, written by npm run bench while it installs nginx\nexit 101\n', {
      mode: 0o755,
    });
  try {
    log('nginx is missing: installing it with apt-get install -y nginx');
    if (!apt(['install', '-y', '--no-install-recommends', 'nginx'])) {
      log('apt-get install failed; running apt-get update and trying again');
      if (!apt(['update']) || !apt(['install', '-y', '--no-install-recommends', 'nginx']))
        throw new Error('apt-get could not install nginx');
    }
  } finally {
    if (ownPolicy) rmSync(policy, { force: true });
  }
}

/** The nginx binary, installed first when missing and allowed. Throws with instructions otherwise. */
export function ensureNginx(log: (line: string) => void): string {
  let bin = findNginx();
  if (bin) return bin;
  if (process.platform === 'linux' && process.getuid?.() === 0 && existsSync('/usr/bin/apt-get')) {
    installNginx(log);
    bin = findNginx();
    if (bin) return bin;
  }
  throw new Error(
    'nginx is not installed. Install it with `sudo apt-get install -y nginx` (Debian/Ubuntu) and run `npm run bench` again; ' +
      'the bench installs it by itself only when it runs as root.',
  );
}

export function nginxVersion(bin: string): string {
  const r = spawnSync(bin, ['-v'], { encoding: 'utf8' });
  return (r.stderr || r.stdout).trim().replace(/^nginx version:\s*/, '');
}

export interface NginxConfigOptions {
  port: number;
  upstreamPort: number;
  workers: number;
  dir: string;
  runAsRoot: boolean;
}

/** The whole nginx.conf: a plain reverse proxy, nothing buffered, no access log (the proxy logs at warn). */
export function nginxConfig(o: NginxConfigOptions): string {
  return `# written by bench/nginx.ts
${o.runAsRoot ? 'user root;\n' : ''}worker_processes ${o.workers};
worker_rlimit_nofile 16384;
events { worker_connections 8192; }
http {
  access_log off;
  client_body_temp_path ${join(o.dir, 'body')};
  proxy_temp_path ${join(o.dir, 'proxy')};
  fastcgi_temp_path ${join(o.dir, 'fastcgi')};
  uwsgi_temp_path ${join(o.dir, 'uwsgi')};
  scgi_temp_path ${join(o.dir, 'scgi')};
  keepalive_requests 1000000;
  keepalive_timeout 65s;
  upstream simulator {
    server 127.0.0.1:${o.upstreamPort};
    keepalive 1024;
    keepalive_requests 1000000;
  }
  server {
    listen 127.0.0.1:${o.port};
    location / {
      proxy_pass http://simulator;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_buffering off;
      proxy_request_buffering off;
      proxy_read_timeout 600s;
    }
  }
}
`;
}

export interface NginxProcess {
  url: string;
  port: number;
  pid: number;
  version: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

export async function startNginx(
  bin: string,
  dir: string,
  upstreamPort: number,
  workers: number,
): Promise<NginxProcess> {
  await mkdir(dir, { recursive: true });
  const port = await freePort();
  const conf = join(dir, 'nginx.conf');
  await writeFile(conf, nginxConfig({ port, upstreamPort, workers, dir, runAsRoot: process.getuid?.() === 0 }));
  const globals = `daemon off; pid ${join(dir, 'nginx.pid')}; error_log ${join(dir, 'error.log')};`;
  const child = spawn(bin, ['-p', dir, '-c', conf, '-g', globals], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) =>
      reject(new Error(`nginx exited (${code}) at start: ${stderr.trim()} (see ${join(dir, 'error.log')})`)),
    ),
  );
  await Promise.race([waitForPort(port, 10_000), exited]);
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    pid: child.pid!,
    version: nginxVersion(bin),
    child,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGQUIT'); // graceful: the master stops its workers
      const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await gone;
      clearTimeout(timer);
    },
  };
}
