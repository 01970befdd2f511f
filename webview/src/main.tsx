import { render } from "preact";
import "./styles/main.css";
import type { ExtensionToWebview } from "@tether/contract/protocol";
import { forgetSession, showSession, store } from "./store";
import { tabs } from "./store/tabs";
import { post, rememberSession } from "./vscode";
import { App } from "./components/App";

declare global {
  interface Window {
    /** For tests and benchmarks: the live store. */
    __tether?: { store: typeof store };
  }
}

window.__tether = {
  get store() {
    return store;
  },
};
// For the view-usable benchmark's trace (tests/bench/extension.mjs --trace).
performance.mark("tether:evaluated");

/** Whether a message comes from a frame inside this page (a canvas widget's page): such a page
 * speaks only to its bridge, never as the extension. */
function fromOwnFrame(event: MessageEvent): boolean {
  const source = event.source;
  if (!source) return false;
  for (const frame of Array.from(document.getElementsByTagName("iframe"))) if (frame.contentWindow === source) return true;
  return false;
}

window.addEventListener("message", (event: MessageEvent) => {
  if (fromOwnFrame(event)) return;
  const msg = event.data as ExtensionToWebview | undefined;
  if (!msg || typeof msg !== "object" || typeof (msg as { type?: unknown }).type !== "string") return;
  switch (msg.type) {
    case "showSession":
      showSession(msg.key);
      tabs.shown(msg.key, msg.surface);
      if (msg.surface === "editor") rememberSession(msg.key);
      return;
    case "openSessions":
      tabs.list(msg.sessions);
      return;
    case "forgetSession":
      forgetSession(msg.key);
      return;
    default:
      store.enqueue(msg);
  }
});

const root = document.getElementById("root") ?? document.body.appendChild(document.createElement("div"));
render(<App />, root);
performance.mark("tether:rendered");
post({ type: "ready" });
