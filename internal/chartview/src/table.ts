// The figures as tables: every column the answer returned (a ratio's summed
// numerator and denominator, the previous figures, the changes and the
// targets included), every row, and the total.

import { groupingOf, isPartial, spanOf, type Cell, type Governed, type Table } from "./answer";
import { h } from "./dom";
import { before, figure } from "./format";

/** The columns beside a metric's own, by suffix (longest first): what each holds, and its unit ("" as returned). */
const besides: [string, (before: string) => string, (unit: string) => string][] = [
  ["_previous_numerator", (b) => `${b}: numerator`, () => ""],
  ["_previous_denominator", (b) => `${b}: denominator`, () => ""],
  ["_previous", (b) => b, (u) => u],
  ["_change_points", () => "change in points", () => ""],
  ["_change", () => "change", (u) => u],
  ["_target_gap_points", () => "points from target", () => ""],
  ["_target", () => "target", (u) => u],
  ["_attainment", () => "attainment (figure over target)", () => "share"],
  ["_numerator", () => "numerator", () => ""],
  ["_denominator", () => "denominator", () => ""],
];

/** What a column holds. */
interface Column {
  heading: string;
  unit?: string; // the unit its figures read in; undefined: not a figure of a metric
  none?: string; // what its null says, when not "no data"
}

function column(col: string, g: Governed, grouping: string): Column {
  const m = g.metrics[col];
  if (m) {
    return { heading: m.label, unit: m.unit };
  }
  for (const [suffix, what, unit] of besides) {
    const metric = g.metrics[col.slice(0, -suffix.length)];
    if (col.endsWith(suffix) && metric) {
      return { heading: `${metric.label}: ${what(before(grouping))}`, unit: unit(metric.unit), none: suffix === "_target" ? "no target set" : undefined };
    }
  }
  return { heading: col.replaceAll("_", " ") };
}

function cell(v: Cell, col: Column, partial: boolean): HTMLTableCellElement {
  const unit = col.unit;
  const text = unit === undefined ? (v == null ? "" : String(v)) : v == null && col.none ? col.none : figure(v, unit);
  return h(
    "td",
    { class: v == null && unit !== undefined ? "null" : partial ? "partial" : undefined, "data-value": v == null ? "null" : String(v) },
    text,
    partial && v != null ? h("span", { class: "mark", title: "not final" }, " *") : null,
  );
}

/** One table of an answer, with partial figures starred. */
export function table(t: Table, g: Governed, caption: string): HTMLTableElement {
  const grouping = groupingOf(t) ?? "";
  const keyAt = t.columns.indexOf(grouping);
  const cols = t.columns.map((c) => column(c, g, grouping));
  const row = (r: Cell[], total: boolean) => {
    const span = total || keyAt < 0 ? { from: g.period.start, to: g.period.end } : spanOf(grouping, String(r[keyAt]), g.period);
    const partial = (i: number) => t.columns[i] in g.metrics && isPartial(t.columns[i], span, g);
    return h("tr", { class: total ? "total" : undefined }, ...r.map((v, i) => cell(v, cols[i], partial(i))));
  };
  return h(
    "table",
    { class: "figures", "data-table": t.id ?? "rows" },
    h("caption", {}, caption),
    h("thead", {}, h("tr", {}, ...cols.map((c) => h("th", { scope: "col" }, c.heading)))),
    h("tbody", {}, ...t.rows.map((r) => row(r, false))),
    t.total ? h("tfoot", {}, row(t.total, true)) : null,
  );
}
