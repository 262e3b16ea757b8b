// The pace projection of a quota window lives in src/shared/pace.ts (the window and the tray project the same
// way as /usage/limits and the alerts); re-exported for the proxy's usage code.

export { currentSpan, minElapsedShare, paceOf, windowSeconds, type Pace } from '../../shared/pace.js';
