// The kinds of usage alert a user can switch on (docs/usage.md "Alerts"), written once: the QUOTA_ALERTS setting
// (proxy/settings/table.ts), the alerts themselves (proxy/usage/lane-alerts.ts) and the window's settings form all
// read this list. Pure and without imports, so it runs in Node and in the window's page alike.

export const laneAlertKinds = ['extra_usage', 'projected_limit', 'available_again'] as const;
export type LaneAlertKind = (typeof laneAlertKinds)[number];
