// The session's info about the project's setup, from the header: the project's MCP servers (where
// each runs, or why it does not) and "what is off, and why": whatever the project configures that
// Tether does not run in this session. A button with the count of what is off, and a panel.

import { useEffect, useState } from "preact/hooks";
import type { UiState } from "@tether/contract/protocol";
import { Icon } from "./common";

export function ProjectSetup({ state }: { state: UiState }) {
  const [open, setOpen] = useState(false);
  const setup = state.projectSetup;
  useEffect(() => {
    if (!open) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key === "Escape") setOpen(false);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [open]);
  if (!setup || (!setup.servers.length && !setup.off.length)) return null;
  const off = setup.off.length;
  // The servers that are off show with their reason in the servers' list, once.
  const otherOff = setup.off.filter((item) => !setup.servers.some((s) => item.what === `MCP server "${s.name}" (.mcp.json)`));
  const label = off ? `Project setup: ${off} off in this session` : "Project setup";
  return (
    <>
      <button
        type="button"
        class={`icon-button project-setup-button${open ? " active" : ""}${off ? " has-off" : ""}`}
        title={label}
        aria-label={label}
        aria-expanded={open}
        aria-controls="project-setup-panel"
        onClick={() => setOpen(!open)}
      >
        <Icon name="plug" />
        {off ? <span class="project-setup-count">{off}</span> : null}
      </button>
      {open ? (
        <section id="project-setup-panel" class="project-setup-panel" aria-label="Project setup">
          <div class="project-setup-head">
            <h2>Project setup</h2>
            <span class="spacer" />
            <button type="button" class="icon-button" title="Close" aria-label="Close" onClick={() => setOpen(false)}>
              <Icon name="close" />
            </button>
          </div>
          {setup.servers.length ? (
            <>
              <h3>MCP servers (.mcp.json)</h3>
              <ul class="project-setup-list project-servers">
                {setup.servers.map((server) => (
                  <li key={server.name} class={server.running ? "running" : "stopped"}>
                    <Icon name={server.running ? "pass-filled" : "circle-slash"} />
                    <span class="project-setup-what">
                      {server.name} <span class="muted small">{server.transport}</span>
                    </span>
                    <span class="project-setup-why muted small">{server.detail}</span>
                  </li>
                ))}
              </ul>
            </>
          ) : null}
          <h3>Off in this session, and why</h3>
          {otherOff.length ? (
            <ul class="project-setup-list project-off">
              {otherOff.map((item, i) => (
                <li key={`${item.what}-${i}`}>
                  <Icon name="circle-slash" />
                  <span class="project-setup-what">{item.what}</span>
                  <span class="project-setup-why muted small">{item.reason}</span>
                </li>
              ))}
            </ul>
          ) : (
            <p class="muted small">{off ? "Only the servers above." : "Nothing: Tether runs everything the project configures."}</p>
          )}
        </section>
      ) : null}
    </>
  );
}
