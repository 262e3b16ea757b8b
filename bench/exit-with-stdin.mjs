// Preloaded (`node --import`) into a peer the bench starts but whose code is not ours (claude-code-router): the bench
// holds the child's stdin open, and when it goes away (even killed with SIGKILL) the peer exits, so no orphan keeps a
// port. The same rule bench/node-hop-process.mjs follows for itself. Nothing else is changed in the peer.

import process from 'node:process';

process.stdin.on('close', () => process.exit(0)).resume();
