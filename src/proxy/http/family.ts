// Which error wire shape a path speaks (SPEC.md §7) is the route table's (route-table.ts): compatible-format routes
// get §7.1, native-format routes §7.2, everything else (health, metrics, unknown roots) the general §7.3 shape.

export { familyOf, type Family } from '../route-table.js';
