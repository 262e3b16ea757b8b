// The Electron main process's entry: the only file (with the preload) that loads electron at runtime. Everything
// else is startApp (start-app.ts), which takes Electron and the environment as arguments so tests can run it
// with a small fake.

import electron from 'electron';
import { startApp } from './start-app.js';

startApp(electron, process.env);
