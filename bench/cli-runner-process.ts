// Runs the fake CLI for workload (d) from a small process of its own. Spawning from the bench process would charge
// the CLI for forking a large parent (the load generator's heap and samples), which the proxy, a much smaller
// process, does not pay; the comparison would then flatter the proxy.
//   parent -> child { type: 'run', id, cliPath, model, prompt, env }   child -> parent { type: 'result', id, run }

import { runCliOnce } from './cli-probe.js';

interface RunMessage {
  type: 'run';
  id: number;
  cliPath: string;
  model: string;
  prompt: string;
  env: NodeJS.ProcessEnv;
}

process.on('message', (msg: RunMessage) => {
  if (msg?.type !== 'run') return;
  void runCliOnce(msg.cliPath, msg.model, msg.prompt, msg.env).then((run) =>
    process.send?.({ type: 'result', id: msg.id, run }),
  );
});
process.on('disconnect', () => process.exit(0));
process.send?.({ type: 'ready' });
