// The figures as tables: every column the answer returned (a ratio's summed
// numerator and denominator included), every row, and the total.

import { groupingOf, isPartial, spanOf, type Cell, type Governed, type Table } from "./answer";
import { h } from "./dom";
import { figure } from "./format";

function heading(col: string, g: Governed): string {
  for (const [suffix, word] of [
    ["_numerator", "numerator"],
    ["_denominator", "denominator"],
  ]) {
    const metric = col.slice(0, -suffix.length);
    if (col.endsWith(suffix) && metric in g.metrics) {
      return `${g.metrics[metric].label}: ${word}`;
    }
  }
  return g.metrics[col]?.label ?? col.replaceAll("_", " ");
}

function cell(v: Cell, col: string, g: Governed, partial: boolean): HTMLTableCellElement {
  const m = g.metrics[col];
  const text = m ? figure(v, m.unit) : v == null ? "" : String(v);
  return h(
    "td",
    { class: v == null && m ? "null" : partial && m ? "partial" : undefined, "data-value": v == null ? "null" : String(v) },
    text,
    partial && m && v != null ? h("span", { class: "mark", title: "not final" }, " *") : null,
  );
}

/** One table of an answer, with partial figures starred. */
export function table(t: Table, g: Governed, caption: string): HTMLTableElement {
  const grouping = groupingOf(t) ?? "";
  const keyAt = t.columns.indexOf(grouping);
  const row = (r: Cell[], total: boolean) => {
    const span = total || keyAt < 0 ? { from: g.period.start, to: g.period.end } : spanOf(grouping, String(r[keyAt]), g.period);
    return h("tr", { class: total ? "total" : undefined }, ...r.map((v, i) => cell(v, t.columns[i], g, isPartial(t.columns[i], span, g))));
  };
  return h(
    "table",
    { class: "figures", "data-table": t.id ?? "rows" },
    h("caption", {}, caption),
    h("thead", {}, h("tr", {}, ...t.columns.map((c) => h("th", { scope: "col" }, heading(c, g))))),
    h("tbody", {}, ...t.rows.map((r) => row(r, false))),
    t.total ? h("tfoot", {}, row(t.total, true)) : null,
  );
}
