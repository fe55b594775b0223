// plumbline's chart view: an MCP App that draws a report tool's answer,
// with everything the answer says its figures need stated beneath. It talks
// to its host only through the official ext-apps App and makes no requests.

import {
  App,
  PostMessageTransport,
  applyDocumentTheme,
  applyHostStyleVariables,
  type McpUiHostContext,
  type McpUiToolResultNotification,
} from "@modelcontextprotocol/ext-apps";
import {
  isCandidates,
  isCanned,
  isRefusal,
  isReport,
  isTimeGrouping,
  seriesOf,
  type Answer,
  type CandidatesAnswer,
  type Governed,
  type RefusalAnswer,
  type Series,
  type Table,
} from "./answer";
import { columns, panel, ranking } from "./chart";
import { h, uid } from "./dom";
import { before, figure, unitName } from "./format";
import { governed, legend } from "./govern";
import { table } from "./table";

const titles: Record<string, string> = { team_weeks: "Week by week", league: "League" };

function header(g: Governed): HTMLElement {
  const r = g.request;
  const title = titles[r.tool] ?? r.tool.charAt(0).toUpperCase() + r.tool.slice(1) + (r.group_by ? ` by ${r.group_by}` : "");
  const who = r.who ? r.who.name + (r.who.team ? ` (${r.who.team})` : "") : "";
  return h(
    "header",
    {},
    h("h1", {}, title),
    h("p", { class: "subtitle" }, [who, `${g.period.start} to ${g.period.end}, ${g.period.time_zone}`].filter(Boolean).join(" · ")),
  );
}

function chartTitle(sr: Series, g: Governed): string {
  const who = g.request.who?.name ?? "";
  const by = sr.grouping ? ` by ${sr.grouping}` : "";
  return `${sr.info.label} (${unitName(sr.info.unit)})${by}${who ? ", " + who : ""}, ${g.period.start} to ${g.period.end}`;
}

/** The tables, behind a toggle, for readers who would rather read figures than bars. */
function tableToggle(tables: HTMLTableElement[]): HTMLElement[] {
  const id = uid("tables");
  const box = h("div", { id, class: "tables", hidden: true }, ...tables);
  const button = h("button", { type: "button", class: "toggle", "aria-expanded": "false", "aria-controls": id }, "Show the figures as a table");
  button.addEventListener("click", () => {
    box.hidden = !box.hidden;
    button.setAttribute("aria-expanded", String(!box.hidden));
    button.textContent = box.hidden ? "Show the figures as a table" : "Hide the table";
  });
  return [button, box];
}

/** What a chart's targets are, for its caption: none when the answer has no targets for it. */
function targetsSaid(sr: Series, each: string): string {
  if (!sr.targets) {
    return "";
  }
  return sr.targets.some((tg) => tg.value !== null) ? `, with ${each} target` : ", with no target set";
}

/** What a chart draws beside each bar, for its caption. */
function alongside(sr: Series): string {
  return (sr.previous ? `, beside the ${before(sr.grouping)}` : "") + targetsSaid(sr, "its");
}

function timePanels(t: Table, g: Governed, caption: (sr: Series) => string): { panels: HTMLElement[]; drawn: Series[] } {
  const drawn = seriesOf(t, g);
  return { panels: drawn.map((sr) => panel(columns(sr, chartTitle(sr, g)), caption(sr))), drawn };
}

function reportView(a: Table & Governed): Node[] {
  const g = a;
  const grouping = g.request.group_by;
  const truncated = a.truncated ? [h("p", { class: "warning" }, "Only the first rows came back (truncated); the notes say how to see the rest.")] : [];
  if (!isTimeGrouping(grouping)) {
    // Not a time series: a table reads better than bars.
    return [header(g), ...truncated, table(a, g, "Figures as returned"), legend(g, seriesOf(a, g), { table: true }), governed(g, Object.keys(g.metrics))];
  }
  const { panels, drawn } = timePanels(a, g, (sr) => `${sr.info.label}, one bar per ${grouping}${alongside(sr)}.`);
  return [header(g), ...truncated, ...panels, legend(g, drawn), ...tableToggle([table(a, g, "Figures as returned")]), governed(g, Object.keys(g.metrics))];
}

function leagueView(a: Governed & { sections: Table[] }): Node[] {
  const sec = a.sections[0];
  const drawn = seriesOf(sec, a);
  const sort = a.request.sort;
  const panels = drawn.map((sr) =>
    panel(
      ranking(sr, chartTitle(sr, a)),
      `${sr.info.label} by team${targetsSaid(sr, "each team's")}, in the league's order${sort ? ` (ranked by ${a.metrics[sort.metric]?.label ?? sort.metric}${a.request.rank_by === "attainment" ? "'s attainment against target" : ""}, ${sort.direction}ending)` : ""}.`,
    ),
  );
  return [header(a), ...panels, legend(a, drawn, { floor: true }), ...tableToggle([table(sec, a, sec.title ?? "League")]), governed(a, Object.keys(a.metrics))];
}

function sectionsView(a: Governed & { sections: Table[] }): Node[] {
  const out: Node[] = [header(a)];
  const drawn: Series[] = [];
  for (const sec of a.sections) {
    out.push(h("h2", {}, sec.title ?? sec.id ?? ""));
    const grouping = a.request.tool === "team_weeks" ? "week" : undefined;
    if (!isTimeGrouping(grouping) || !sec.columns.includes(grouping)) {
      out.push(table(sec, a, sec.title ?? ""));
      continue;
    }
    const part = timePanels(sec, a, (sr) => {
      const all = sr.total ? `; all ${sec.rows.length} weeks together: ${figure(sr.total.value, sr.info.unit)}` : "";
      return `${sr.info.label}, one bar per week${alongside(sr)}${all}.`;
    });
    out.push(...part.panels);
    drawn.push(...part.drawn);
  }
  out.push(legend(a, drawn), ...tableToggle(a.sections.map((sec) => table(sec, a, sec.title ?? ""))), governed(a, Object.keys(a.metrics)));
  return out;
}

function refusalView(a: RefusalAnswer): Node[] {
  const e = a.error;
  return [
    h("section", { class: "refusal" }, h("h1", {}, "plumbline refused this call"), h("p", {}, h("code", {}, e.argument), " ", e.rule), e.choices?.length ? h("p", {}, "Valid choices: " + e.choices.join(", ")) : null),
  ];
}

function candidatesView(a: CandidatesAnswer): Node[] {
  return [
    h("h1", {}, "Several matches: which one is meant?"),
    h("ul", { class: "candidates" }, ...a.candidates.map((c) => h("li", {}, c.name + (c.team ? ` (${c.team})` : "") + (c.agent_key ? ` · ${c.agent_key}` : "")))),
    h("ul", { class: "notes" }, ...a.notes.map((n) => h("li", {}, n))),
  ];
}

function content(a: Answer | null): Node[] {
  if (a === null) {
    return [h("p", { class: "warning" }, "This answer holds no figures to draw.")];
  }
  if (isRefusal(a)) {
    return refusalView(a);
  }
  if (isCandidates(a)) {
    return candidatesView(a);
  }
  if (isCanned(a)) {
    return a.request.tool === "league" ? leagueView(a) : sectionsView(a);
  }
  if (isReport(a)) {
    return reportView(a);
  }
  return [h("p", { class: "warning" }, "This answer holds no figures to draw.")];
}

function answerOf(r: McpUiToolResultNotification["params"]): Answer | null {
  if (r.structuredContent) {
    return r.structuredContent as unknown as Answer;
  }
  for (const c of r.content ?? []) {
    if (c.type === "text") {
      try {
        return JSON.parse(c.text) as Answer;
      } catch {
        return null;
      }
    }
  }
  return null;
}

const root = document.getElementById("app")!;

function show(nodes: Node[], state: string) {
  root.replaceChildren(...nodes);
  root.dataset.rendered = state;
}

function applyContext(ctx: McpUiHostContext | undefined) {
  if (ctx?.theme) {
    applyDocumentTheme(ctx.theme);
  }
  if (ctx?.styles?.variables) {
    applyHostStyleVariables(ctx.styles.variables);
  }
}

const app = new App({ name: "plumbline-chart", version: "1" }, {}, { autoResize: true });
app.ontoolresult = (r) => {
  const a = answerOf(r);
  try {
    show(content(a), a === null ? "empty" : r.isError ? "refusal" : "figures");
  } catch (e) {
    // Say so rather than leave a half-drawn picture; the client still has the answer's text.
    show([h("p", { class: "warning" }, `This answer could not be drawn (${e instanceof Error ? e.message : String(e)}); its figures are in the text of the answer.`)], "failed");
  }
};
app.ontoolcancelled = () => show([h("p", { class: "warning" }, "The call was cancelled; there are no figures.")], "cancelled");
app.onhostcontextchanged = applyContext;
app.connect(new PostMessageTransport(window.parent, window.parent)).then(() => applyContext(app.getHostContext()));
