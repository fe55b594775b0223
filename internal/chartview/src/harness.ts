// A test host for the chart view, built on the ext-apps host bridge
// (AppBridge). It loads a view's HTML in a sandboxed iframe with the CSP the
// resource declares, and delivers a tool's input and result the way a host
// does once the view has initialized. The Go browser test drives it.

import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";
import type { McpUiResourceCsp, McpUiTheme } from "@modelcontextprotocol/ext-apps/app-bridge";

interface Load {
  html: string; // the resource's text, from resources/read
  csp?: McpUiResourceCsp; // the resource's _meta.ui.csp
  tool: { name: string; [k: string]: unknown }; // the tool, from tools/list
  input: Record<string, unknown>; // the call's arguments
  result: Record<string, unknown>; // the tools/call result, as it came over the wire
  theme: McpUiTheme;
}

/** The CSP the MCP Apps spec has a host build from a resource's declared domains. */
function policy(csp: McpUiResourceCsp | undefined): string {
  const res = (csp?.resourceDomains ?? []).join(" ");
  const connect = (csp?.connectDomains ?? []).join(" ");
  return [
    "default-src 'none'",
    `script-src 'self' 'unsafe-inline' ${res}`,
    `style-src 'self' 'unsafe-inline' ${res}`,
    `connect-src 'self' ${connect}`,
    `img-src 'self' data: ${res}`,
    `font-src 'self' ${res}`,
    `media-src 'self' data: ${res}`,
    `frame-src ${(csp?.frameDomains ?? []).join(" ") || "'none'"}`,
    "object-src 'none'",
    `base-uri ${(csp?.baseUriDomains ?? []).join(" ") || "'self'"}`,
  ].join("; ");
}

const status = document.getElementById("status")!;
const log: unknown[] = [];

async function load(o: Load): Promise<void> {
  document.body.classList.toggle("dark", o.theme === "dark");
  const iframe = document.createElement("iframe");
  iframe.setAttribute("sandbox", "allow-scripts");
  iframe.title = o.tool.name;
  document.getElementById("frame")!.replaceChildren(iframe);

  const bridge = new AppBridge(null, { name: "plumbline-test-host", version: "1" }, { logging: {} }, {
    hostContext: { theme: o.theme, displayMode: "inline", platform: "web", containerDimensions: { width: 760, maxHeight: 6000 } },
  });
  bridge.onsizechange = ({ height }) => {
    if (height != null) {
      iframe.style.height = `${height}px`;
    }
  };
  bridge.onloggingmessage = (m) => log.push(m);
  bridge.oninitialized = async () => {
    status.textContent = "initialized";
    await bridge.sendToolInput({ arguments: o.input });
    await bridge.sendToolResult(o.result as Parameters<AppBridge["sendToolResult"]>[0]);
    status.textContent = "delivered";
  };
  // Listen before the view loads, so its ui/initialize is not missed.
  await bridge.connect(new PostMessageTransport(iframe.contentWindow!, iframe.contentWindow!));
  const csp = `<meta http-equiv="Content-Security-Policy" content="${policy(o.csp).replaceAll('"', "&quot;")}">`;
  iframe.srcdoc = o.html.replace(/<head>/i, () => "<head>" + csp);
  status.textContent = "loading";
}

(window as unknown as { plumblineHost: unknown }).plumblineHost = { load, log };
