// nginx from Debian's packages as the comparison reverse proxy: a config written into a temporary
// directory (proxy_pass to the simulator, buffering off both ways, HTTP/1.1 with a keep-alive upstream pool), run
// in the foreground as our child on 127.0.0.1 with a free port. When nginx is missing, the run stops with the
// command to type.

import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { attach, freePort } from './servers.js';

const candidates = ['/usr/sbin/nginx', '/usr/bin/nginx', '/usr/local/sbin/nginx', '/usr/local/nginx/sbin/nginx'];

/** The nginx binary; throws with the command to install it when it is missing. */
export function ensureNginx(): string {
  const bin =
    candidates.find((c) => existsSync(c)) ??
    spawnSync('sh', ['-c', 'command -v nginx'], { encoding: 'utf8' }).stdout.trim();
  if (bin) return bin;
  throw new Error(
    'nginx is not installed. Install it with `sudo apt-get install -y nginx` (Debian/Ubuntu) and run `npm run bench` again.',
  );
}

/** The whole nginx.conf: a plain reverse proxy, nothing buffered, no access log (the proxy logs at warn). */
function nginxConfig(o: { port: number; upstreamPort: number; workers: number; dir: string }): string {
  return `# written by bench/nginx.ts
${process.getuid?.() === 0 ? 'user root;\n' : ''}worker_processes ${o.workers};
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

export type NginxProcess = Awaited<ReturnType<typeof startNginx>>;

export async function startNginx(bin: string, dir: string, upstreamPort: number, workers: number) {
  await mkdir(dir, { recursive: true });
  const port = await freePort();
  const conf = join(dir, 'nginx.conf');
  await writeFile(conf, nginxConfig({ port, upstreamPort, workers, dir }));
  const globals = `daemon off; pid ${join(dir, 'nginx.pid')}; error_log ${join(dir, 'error.log')};`;
  const child = spawn(bin, ['-p', dir, '-c', conf, '-g', globals], { stdio: ['ignore', 'ignore', 'pipe'] });
  // SIGQUIT: graceful, the master stops its workers.
  const started = await attach(`nginx (log: ${join(dir, 'error.log')})`, child, { port, signal: 'SIGQUIT' });
  const v = spawnSync(bin, ['-v'], { encoding: 'utf8' });
  return { ...started, version: (v.stderr || v.stdout).trim().replace(/^nginx version:\s*/, '') };
}
