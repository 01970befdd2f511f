// Building blocks every view uses: a codicon, and a link that opens a workspace file.

import { store } from "../store";
import { post } from "../vscode";
import { basename, dirname, workspaceRelative } from "../util";

export function Icon({ name, className, label }: { name: string; className?: string; label?: string }) {
  return (
    <span
      class={`codicon codicon-${name}${className ? " " + className : ""}`}
      aria-hidden={label ? undefined : "true"}
      role={label ? "img" : undefined}
      aria-label={label}
    />
  );
}

/** The folder of a file as the workspace names it, the full path on hover; nothing for a file at
 * the workspace's top. */
export function PathDir({ path }: { path: string }) {
  const dir = dirname(workspaceRelative(path, store.state.workspaceRoot));
  return dir ? <span class="muted path-dir" title={path}>{` ${dir}`}</span> : null;
}

export function FileLink({ path, line, label, className }: { path: string; line?: number; label?: string; className?: string }) {
  const text = label ?? basename(path) ?? path;
  return (
    <a
      href="#"
      class={`file-ref${className ? " " + className : ""}`}
      title={line ? `${path}:${line}` : path}
      data-path={path}
      data-line={line ?? ""}
      onClick={(e) => {
        e.preventDefault();
        e.stopPropagation();
        post(line ? { type: "openFile", path, line } : { type: "openFile", path });
      }}
    >
      {text}
    </a>
  );
}
