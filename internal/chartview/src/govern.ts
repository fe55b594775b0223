// What stands under every chart: how to read the marks, and everything the
// answer says a figure needs beside it: each metric's label, unit and
// definition (or its reference), how far each source's data runs, the
// period with its time zone, the counting basis, and the notes.

import { basesOf, type Governed, type Series } from "./answer";
import { h, s, uid } from "./dom";
import { before, date, unitName } from "./format";

function swatch(kind: "final" | "partial" | "gap" | "floor" | "previous" | "target"): SVGSVGElement {
  const svg = s("svg", { class: "swatch", viewBox: "0 0 16 12", width: 16, height: 12, "aria-hidden": "true" });
  switch (kind) {
    case "final":
      svg.append(s("rect", { class: "bar", x: 1, y: 1, width: 14, height: 10 }));
      break;
    case "partial": {
      const id = uid("hatch");
      svg.append(
        s("defs", {}, s("pattern", { id, class: "hatch", patternUnits: "userSpaceOnUse", width: 4, height: 4, patternTransform: "rotate(45)" }, s("line", { x1: 0, y1: 0, x2: 0, y2: 4 }))),
        s("rect", { class: "bar partial", x: 1, y: 1, width: 14, height: 10, fill: `url(#${id})` }),
      );
      break;
    }
    case "gap":
      svg.append(s("line", { class: "gap-mark", x1: 8, x2: 8, y1: 11, y2: 1 }));
      break;
    case "floor":
      svg.append(s("line", { class: "floor-line", x1: 8, x2: 8, y1: 0, y2: 12 }));
      break;
    case "previous":
      svg.append(s("rect", { class: "prev-bar", x: 2, y: 2, width: 12, height: 9 }));
      break;
    case "target":
      svg.append(s("line", { class: "target-line", x1: 2, x2: 14, y1: 6, y2: 6 }));
      break;
  }
  return svg;
}

/** Why the hatched figures are partial, one line per day they are final through. */
function partialReasons(g: Governed, drawn: Series[]): string[] {
  const byThrough = new Map<string, string[]>();
  for (const sr of drawn) {
    if (!sr.points.some((p) => p.partial && p.value !== null) || !g.partial_metrics.includes(sr.metric)) {
      continue;
    }
    const through = sr.info.data_through.complete_through ?? "";
    const labels = byThrough.get(through) ?? [];
    if (!labels.includes(sr.info.label)) {
      byThrough.set(through, [...labels, sr.info.label]);
    }
  }
  return [...byThrough].map(([through, labels]) =>
    through
      ? `${labels.join(", ")}: days after ${through} are not final yet, so figures covering them are partial and will still change.`
      : `${labels.join(", ")}: no day is final yet, so every figure is partial.`,
  );
}

/** The key to the marks, with the reason for every partial figure drawn. */
export function legend(g: Governed, drawn: Series[], opts: { floor?: boolean; table?: boolean } = {}): HTMLElement {
  const reasons = partialReasons(g, drawn);
  const partial = opts.table ? "Partial figure (starred *)" : "Partial figure (hatched)";
  const items = [
    opts.table ? null : h("li", {}, swatch("final"), " Final figure"),
    h(
      "li",
      { class: "legend-partial" },
      opts.table ? null : swatch("partial"),
      reasons.length ? ` ${partial}: ${reasons.join(" ")}` : ` ${partial}: none here.`,
    ),
    h("li", {}, opts.table ? null : swatch("gap"), " No data: the answer holds null here, which is not zero"),
  ];
  if (opts.floor) {
    items.push(h("li", {}, swatch("floor"), " ◆ The whole floor's figure over the same days"));
  }
  // A table states previous figures and targets in columns of their own.
  const compared = opts.table ? undefined : drawn.find((sr) => sr.previous);
  if (compared) {
    const word = before(compared.grouping);
    items.push(
      h(
        "li",
        { class: "legend-previous" },
        swatch("previous"),
        ` ${word.charAt(0).toUpperCase() + word.slice(1)} (hollow, dashed, left of each bar): the same figure for the ${word}; the change is in the table`,
      ),
    );
  }
  const targeted = opts.table ? undefined : drawn.find((sr) => sr.targets);
  if (targeted) {
    const row = targeted.grouping || "row";
    items.push(
      h(
        "li",
        { class: "legend-target" },
        swatch("target"),
        ` Target: the target set for each ${row}, with the attainment in the tooltip and the table; a ${row} with no mark has no target set, which is not zero`,
      ),
    );
  }
  return h("ul", { class: "legend", "aria-label": "How to read the charts" }, ...items);
}

function metricEntry(id: string, g: Governed): HTMLElement {
  const m = g.metrics[id];
  const rows: [string, string][] = [["Unit", unitName(m.unit)]];
  if (m.definition) {
    rows.push(["Definition", m.definition]);
  } else if (m.definition_ref) {
    rows.push(["Definition", `by reference: ${m.definition_ref} (unchanged since an earlier answer; metric_definitions has the text)`]);
  } else {
    rows.push(["Definition", "left out of this compact answer; metric_definitions has it"]);
  }
  if (m.formula) {
    rows.push(["Formula", m.formula]);
  }
  if (m.source) {
    rows.push(["Source", m.source]);
  }
  rows.push(["Counting basis", m.sales_basis ?? "none: not a sales figure"]);
  rows.push(["Data through", `runs to ${date(m.data_through.runs_to)}, final through ${date(m.data_through.complete_through)}`]);
  return h(
    "div",
    { class: "metric", "data-metric": id },
    h("h4", {}, m.label),
    h("dl", {}, ...rows.flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, v)])),
  );
}

/** Everything the answer says its figures need beside them. */
export function governed(g: Governed, metricIds: string[]): HTMLElement {
  const p = g.period;
  const bases = basesOf(g);
  const sources = Object.entries(g.data_through).sort(([a], [b]) => a.localeCompare(b));
  return h(
    "section",
    { class: "governed", "aria-label": "What these figures mean" },
    h("h3", {}, "What these figures mean"),
    h(
      "p",
      { class: "period" },
      h("strong", {}, "Period: "),
      `${p.start} to ${p.end} (${p.days} ${p.days === 1 ? "day" : "days"}${p.named ? `, ${p.named.replaceAll("_", " ")}` : ""}), days in ${p.time_zone}.`,
    ),
    h(
      "p",
      { class: "basis" },
      h("strong", {}, "Counting basis: "),
      bases.size
        ? [...bases].map(([b, ids]) => `${b} (${ids.map((id) => g.metrics[id].label).join(", ")})`).join("; ") +
            (bases.size > 1 ? ". Never add or compare figures across bases." : ".")
        : "none: no sales figures here.",
    ),
    h("div", { class: "metrics" }, ...metricIds.map((id) => metricEntry(id, g))),
    h("h4", {}, "Data through, by source"),
    h(
      "table",
      { class: "sources" },
      h("thead", {}, h("tr", {}, h("th", {}, "Source"), h("th", {}, "Runs to"), h("th", {}, "Final through"))),
      h(
        "tbody",
        {},
        ...sources.map(([rel, dt]) =>
          h("tr", { "data-source": rel }, h("td", {}, rel), h("td", {}, date(dt.runs_to)), h("td", {}, date(dt.complete_through))),
        ),
      ),
    ),
    h("h4", {}, "Notes"),
    h("ul", { class: "notes" }, ...g.notes.map((n) => h("li", {}, n))),
    g.note_refs?.length
      ? h(
          "p",
          { class: "note-refs" },
          `Standing notes by reference (unchanged since an earlier answer; metric_definitions has their text): ${g.note_refs.join(", ")}.`,
        )
      : null,
    h("p", { class: "version" }, `Catalogue version ${g.catalog_version}.`),
  );
}
