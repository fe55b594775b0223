// How figures and dates read on screen. Formatting changes how a returned
// figure is written, never its value.

import type { Cell } from "./answer";

const unitNames: Record<string, string> = {
  count: "count",
  hours: "hours",
  share: "%",
  per_hour: "per hour",
};

/** The unit as an axis title says it. */
export function unitName(unit: string): string {
  return unitNames[unit] ?? unit;
}

/** A figure in its unit: shares as percentages, hours and rates to two places. */
export function figure(v: Cell | undefined, unit: string): string {
  if (v == null || v === "") {
    return "no data";
  }
  if (typeof v !== "number") {
    return String(v);
  }
  switch (unit) {
    case "share":
      return trim(v * 100, 1) + "%";
    case "count":
      return v.toLocaleString("en-US");
    case "hours":
      return trim(v, 2) + " h";
    case "per_hour":
      return trim(v, 2) + " /h";
    default:
      return trim(v, 2);
  }
}

/** An axis tick: shorter than a figure. */
export function tick(v: number, unit: string): string {
  if (unit === "share") {
    return trim(v * 100, 0) + "%";
  }
  return trim(v, v >= 10 || Number.isInteger(v) ? 0 : 2);
}

function trim(v: number, places: number): string {
  return v.toLocaleString("en-US", { maximumFractionDigits: places, minimumFractionDigits: 0 });
}

const months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];

/** A YYYY-MM-DD date as "Mon 16 Nov". */
export function day(date: string): string {
  const d = new Date(date + "T00:00:00Z");
  return `${weekdays[d.getUTCDay()]} ${d.getUTCDate()} ${months[d.getUTCMonth()]}`;
}

/** A week by its first day, as "wk of 16 Nov". */
export function week(date: string): string {
  const d = new Date(date + "T00:00:00Z");
  return `wk of ${d.getUTCDate()} ${months[d.getUTCMonth()]}`;
}

/** What a row's previous figure is: the day or week before it, or the previous period. */
export function before(grouping: string): string {
  return grouping === "day" ? "day before" : grouping === "week" ? "week before" : "previous period";
}

/** A target's attainment as returned: the figure over its target, or for a rate the gap in points. */
export function attainment(v: Cell | undefined, gapPoints: boolean): string {
  if (v == null || typeof v !== "number") {
    return figure(v, "");
  }
  if (!gapPoints) {
    return `${trim(v * 100, 1)}% of target`;
  }
  return v === 0 ? "on target" : `${trim(Math.abs(v), 1)} points ${v > 0 ? "above" : "below"} target`;
}

/** A date as the answer states it; a source with no rows has none. */
export function date(d: string | null | undefined): string {
  return d ?? "never (the source holds no rows)";
}
