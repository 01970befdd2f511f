// The agent's side of a remote workspace: its local mirror folder, and the project's agent context
// (CLAUDE.md, .claude/agents, .claude/commands, .claude/skills, .claude/output-styles; AGENTS.md and
// GEMINI.md for ACP agents) brought from the remote into it; the project's .claude/settings*.json
// are read for Tether's own use and never copied there. No vscode import: the files are read
// through a TetherHost, so tests use a NodeHost on temp dirs.

import { createHash, randomBytes } from "node:crypto";
import { promises as fsp } from "node:fs";
import * as path from "node:path";
import type { TetherHost } from "../core/host";

/** Project files an agent would read from its cwd, in the remote's namespace (relative, POSIX):
 * Claude Code's, and the instructions ACP agents read (AGENTS.md: codex and others; GEMINI.md). */
export const CONTEXT_FILES = [
  "CLAUDE.md",
  "CLAUDE.local.md",
  ".claude/CLAUDE.md",
  ".claude/settings.json",
  ".claude/settings.local.json",
  "AGENTS.md",
  "GEMINI.md",
];
/** Context files read from the workspace for Tether (permission rules, hooks, the output style) and
 * never written to the mirror: an agent that reads project settings in its folder (claude-agent-acp
 * does) would run their hooks, `apiKeyHelper` and `env` on the laptop (measured with 2.1.330). */
export const SETTINGS_FILES: readonly string[] = [".claude/settings.json", ".claude/settings.local.json"];
/** Folders brought over whole: subagents and slash commands (Markdown), skills (a SKILL.md and
 * the files beside it) and output styles. */
export const CONTEXT_DIRS = [".claude/agents", ".claude/commands", ".claude/skills", ".claude/output-styles"];
/** Where the CLI finds a remote project's skills and output styles: the mirror's `.claude` is
 * given as a plugin folder (`--plugin-dir`, read under `--restricted`), and this manifest keeps
 * the plugin to those two (no agents, no commands: Tether hands those over itself). */
export const PLUGIN_MANIFEST = ".claude/.claude-plugin/plugin.json";
const PLUGIN_PARTS = [".claude/skills/", ".claude/output-styles/"];
/** The glob a file watcher on the remote folder uses to notice a change to any of them. */
export const CONTEXT_WATCH_GLOB = "{CLAUDE.md,CLAUDE.local.md,.claude/**,AGENTS.md,GEMINI.md}";
/** Memory files, in the order the model reads them, and what each is. */
const MEMORY_FILES: [string, string][] = [
  ["CLAUDE.md", "project instructions, checked into the codebase"],
  [".claude/CLAUDE.md", "project instructions, checked into the codebase"],
  ["CLAUDE.local.md", "user's private project instructions, not checked in"],
];
/** Larger files are not context files; they are skipped, not truncated. */
const MAX_CONTEXT_FILE_BYTES = 512 * 1024;
const MAX_CONTEXT_DIR_FILES = 200;

/** A name safe as one path segment on Windows, macOS and Linux. */
function safeSegment(name: string): string {
  const cleaned = name
    .replace(/[<>:"/\\|?*\u0000-\u001f]/g, "_")
    .replace(/[. ]+$/, "")
    .slice(0, 60);
  return /^(con|prn|aux|nul|com\d|lpt\d)$/i.test(cleaned) || cleaned === "" ? `_${cleaned}` : cleaned;
}

/**
 * The CLI's cwd for a remote folder: one per remote authority and path, under `base`, readable
 * (host and folder name) and collision-free (a hash of both). Plain string joins: no symlink is
 * resolved (macOS's /var → /private/var would change the CLI's project key).
 */
export function mirrorFolder(base: string, authority: string, remotePath: string): string {
  const hash = createHash("sha256").update(`${authority}\n${remotePath}`).digest("hex").slice(0, 10);
  const name = remotePath.split("/").filter(Boolean).pop() ?? "root";
  return path.join(base, "mirrors", safeSegment(authority || "remote"), `${safeSegment(name)}-${hash}`);
}

export interface ProjectContext {
  /** Relative POSIX path → content, for every context file present on the remote. */
  files: Map<string, Uint8Array>;
}

function posixJoin(root: string, rel: string): string {
  return root.endsWith("/") ? root + rel : `${root}/${rel}`;
}

async function readSmallFile(host: TetherHost, file: string): Promise<Uint8Array | undefined> {
  try {
    const stat = await host.stat(file);
    if (stat.kind !== "file" || stat.size > MAX_CONTEXT_FILE_BYTES) return undefined;
    return await host.readFile(file);
  } catch {
    return undefined; // absent (the usual case) or unreadable: not part of the context
  }
}

/** Read the project's context files from the workspace root (through the host). */
export async function readProjectContext(host: TetherHost, root: string): Promise<ProjectContext> {
  const files = new Map<string, Uint8Array>();
  const wanted = [...CONTEXT_FILES];
  for (const dir of CONTEXT_DIRS) {
    const found = await listFiles(host, root, dir, MAX_CONTEXT_DIR_FILES);
    wanted.push(...found);
  }
  const contents = await Promise.all(wanted.map((rel) => readSmallFile(host, posixJoin(root, rel))));
  wanted.forEach((rel, i) => {
    const content = contents[i];
    if (content) files.set(rel, content);
  });
  return { files };
}

async function listFiles(host: TetherHost, root: string, rel: string, limit: number): Promise<string[]> {
  const out: string[] = [];
  const pending = [rel];
  while (pending.length && out.length < limit) {
    const dir = pending.shift()!;
    let entries;
    try {
      entries = await host.readDir(posixJoin(root, dir));
    } catch {
      continue;
    }
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const child = `${dir}/${entry.name}`;
      if (entry.kind === "directory") pending.push(child);
      else if (entry.kind === "file" && out.length < limit) out.push(child);
    }
  }
  return out;
}

/** The memory text for the system prompt: the project's CLAUDE.md files with where they are. */
export function memoryPrompt(context: ProjectContext, root: string): string | undefined {
  const parts: string[] = [];
  for (const [rel, what] of MEMORY_FILES) {
    const content = context.files.get(rel);
    if (!content) continue;
    const text = Buffer.from(content).toString("utf8").trim();
    if (text) parts.push(`Contents of ${posixJoin(root, rel)} (${what}):\n\n${text}`);
  }
  if (!parts.length) return undefined;
  return (
    "Codebase and user instructions are shown below. Be sure to adhere to these instructions. " +
    "IMPORTANT: These instructions OVERRIDE any default behavior and you MUST follow them exactly as written.\n\n" +
    parts.join("\n\n")
  );
}

/** The project's subagent definitions (`.claude/agents/**.md`) as file name and text. */
export function agentFiles(context: ProjectContext): { name: string; text: string }[] {
  return [...context.files]
    .filter(([rel]) => rel.startsWith(".claude/agents/") && rel.endsWith(".md"))
    .map(([rel, content]) => ({ name: rel.slice(rel.lastIndexOf("/") + 1), text: Buffer.from(content).toString("utf8") }));
}

/** Whether the context holds a skill or an output style (the CLI then gets the plugin folder). */
export function hasPluginParts(context: ProjectContext): boolean {
  return [...context.files.keys()].some((rel) => PLUGIN_PARTS.some((part) => rel.startsWith(part)));
}

/** The plugin's name for a folder: its output styles are `<name>:<style>` to the CLI. */
export function pluginName(root: string): string {
  const base = root.split(/[\\/]/).filter(Boolean).pop() ?? "";
  return base.toLowerCase().replace(/[^a-z0-9-]+/g, "-").replace(/^-+|-+$/g, "") || "project";
}

function pluginManifest(name: string): Uint8Array {
  const manifest = { name, description: "The project's skills and output styles, mirrored by Tether.", agents: [], commands: [] };
  return Buffer.from(JSON.stringify(manifest, null, 2) + "\n");
}

/** The output style the project's settings choose (local over project), by the name the CLI
 * knows it: `<plugin>:<name>` for one of the project's own styles, else as written (a built-in). */
export function outputStyle(context: ProjectContext, plugin: string): string | undefined {
  let chosen: string | undefined;
  for (const rel of [".claude/settings.local.json", ".claude/settings.json"]) {
    const content = context.files.get(rel);
    if (chosen !== undefined || !content) continue;
    try {
      const value = (JSON.parse(Buffer.from(content).toString("utf8")) as { outputStyle?: unknown }).outputStyle;
      if (typeof value === "string" && value.trim()) chosen = value.trim();
    } catch {
      // A settings file that is not JSON chooses nothing; the permission engine reports it.
    }
  }
  if (chosen === undefined) return undefined;
  const own = [...context.files].some(([rel, content]) => rel.startsWith(".claude/output-styles/") && rel.endsWith(".md") && styleName(rel, content) === chosen);
  return own ? `${plugin}:${chosen}` : chosen;
}

/** An output style's name: its front matter's `name`, else its file name. */
function styleName(rel: string, content: Uint8Array): string {
  const text = Buffer.from(content).toString("utf8");
  const front = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text)?.[1] ?? "";
  const name = /^name:\s*(.+?)\s*$/m.exec(front)?.[1]?.replace(/^["']|["']$/g, "");
  return name || rel.slice(rel.lastIndexOf("/") + 1, -".md".length);
}

/** A fingerprint of the context, to tell whether a change matters. */
export function contextFingerprint(context: ProjectContext): string {
  const hash = createHash("sha256");
  for (const rel of [...context.files.keys()].sort()) {
    hash.update(rel).update("\0").update(context.files.get(rel)!).update("\0");
  }
  return hash.digest("hex");
}

/**
 * Make the mirror hold exactly the context files but the settings (and nothing of the project):
 * write the ones that differ, remove the ones the remote no longer has (and settings an older
 * Tether copied). Returns the relative paths it changed.
 */
export async function syncMirror(mirror: string, context: ProjectContext, plugin = "project"): Promise<string[]> {
  const changed: string[] = [];
  await fsp.mkdir(mirror, { recursive: true });
  const files = new Map([...context.files].filter(([rel]) => !SETTINGS_FILES.includes(rel)));
  if (hasPluginParts(context)) files.set(PLUGIN_MANIFEST, pluginManifest(plugin));
  for (const [rel, content] of files) {
    const target = path.join(mirror, ...rel.split("/"));
    const current = await fsp.readFile(target).catch(() => undefined);
    if (current && Buffer.compare(current, content) === 0) continue;
    await fsp.mkdir(path.dirname(target), { recursive: true });
    // A name of its own: sessions starting at once sync the same mirror side by side.
    const temp = `${target}.${randomBytes(6).toString("hex")}.tether-sync`;
    await fsp.writeFile(temp, content);
    await fsp.rename(temp, target);
    changed.push(rel);
  }
  for (const rel of await mirroredFiles(mirror)) {
    if (files.has(rel)) continue;
    await fsp.rm(path.join(mirror, ...rel.split("/")), { force: true });
    changed.push(rel);
  }
  return changed;
}

/** The context files now in the mirror (relative, POSIX). */
async function mirroredFiles(mirror: string): Promise<string[]> {
  const out: string[] = [];
  for (const rel of [...CONTEXT_FILES, PLUGIN_MANIFEST]) {
    if (await fsp.stat(path.join(mirror, ...rel.split("/"))).then((s) => s.isFile(), () => false)) out.push(rel);
  }
  for (const dir of CONTEXT_DIRS) {
    const walk = async (rel: string): Promise<void> => {
      const entries = await fsp.readdir(path.join(mirror, ...rel.split("/")), { withFileTypes: true }).catch(() => []);
      for (const entry of entries) {
        const child = `${rel}/${entry.name}`;
        if (entry.isDirectory()) await walk(child);
        // Another session's sync may be writing its temp file here.
        else if (!entry.name.endsWith(".tether-sync")) out.push(child);
      }
    };
    await walk(dir);
  }
  return out;
}
