import { useEffect, useReducer } from "preact/hooks";
import type { OpenSessionInfo } from "@tether/contract/protocol";
import { tabs } from "../store/tabs";
import { post } from "../vscode";
import { Icon } from "./common";

/** What a session's badge says, for the eye and for a screen reader. */
function badgeOf(s: OpenSessionInfo): { kind: string; label: string } | undefined {
  if (s.waiting) return { kind: "waiting", label: "waiting for approval" };
  if (s.unread) return { kind: "unread", label: "finished, not seen yet" };
  if (s.busy) return { kind: "busy", label: "working" };
  return undefined;
}

/** The sidebar's open sessions: switch between them, close one, start another. Shown when more
 * than one is open. */
export function SessionStrip() {
  const [, force] = useReducer((x: number) => x + 1, 0);
  useEffect(() => tabs.subscribe(() => force(undefined)), []);
  if (tabs.surface !== "sidebar" || tabs.sessions.length < 2) return null;
  return (
    <nav class="session-strip" aria-label="Open sessions">
      <div class="session-tabs" role="tablist" aria-label="Open sessions">
        {tabs.sessions.map((s) => {
          const badge = badgeOf(s);
          const current = s.key === tabs.key;
          return (
            <div key={s.key} class={`session-tab${current ? " current" : ""}`} data-session-key={s.key}>
              <button
                type="button"
                role="tab"
                class="session-tab-button"
                aria-selected={current}
                title={`${s.title} (${s.agentLabel}${s.inEditor ? ", in an editor tab" : ""})${badge ? `: ${badge.label}` : ""}`}
                onClick={() => post({ type: "selectSession", key: s.key })}
                onDblClick={() => post({ type: "renameSession", key: s.key })}
              >
                {badge ? <span class={`session-badge session-badge-${badge.kind}`} aria-label={badge.label} role="img" /> : null}
                <span class="session-tab-title">{s.title}</span>
              </button>
              <button
                type="button"
                class="icon-button session-tab-close"
                aria-label={`Close ${s.title}`}
                title="Close the session (it stays in the history)"
                onClick={() => post({ type: "dismissSession", key: s.key })}
              >
                <Icon name="close" />
              </button>
            </div>
          );
        })}
      </div>
    </nav>
  );
}
