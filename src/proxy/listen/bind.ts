// Binding a listener's port, and what its failures say: a taken port is a PortInUseError (cli.ts exits 1 with its
// message, the desktop app names the port beside the field), a port below 1024 or an address this machine does not
// have is one line with the setting to change.

import type { Server } from 'node:http';

export class PortInUseError extends Error {
  constructor(
    readonly port: number,
    readonly host: string,
  ) {
    super(
      `Port ${port} already in use on ${host}. Choose another port with --port or PORT (or in the app's settings).`,
    );
    this.name = 'PortInUseError';
  }
}

/** The flag and variable that set a listener's port, named in the error when it cannot be used. */
export interface PortSetting {
  flag: string;
  env: string;
}

/** Listens on `host:port`; rejects with PortInUseError when it is taken, with a remedy for the other refusals. */
export async function bind(server: Server, host: string, port: number, setting: PortSetting): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE') reject(new PortInUseError(port, host));
      else if (err.code === 'EACCES')
        reject(
          new Error(
            `Not allowed to listen on ${host}:${port} (${err.code}); choose a port above 1024 with ${setting.flag} or ${setting.env}`,
          ),
        );
      else if (err.code === 'EADDRNOTAVAIL')
        reject(new Error(`Address ${host} is not available on this machine; choose another --host`));
      else reject(err);
    });
    server.listen(port, host, () => resolve());
  });
}
