/** A validated time-series event (DESIGN.md, event contract). */
export type TsEvent = {
  id: string;
  /** epoch milliseconds, integer */
  ts: number;
  metric: string;
  /** finite */
  value: number;
  tags: Readonly<Record<string, string>>;
};
