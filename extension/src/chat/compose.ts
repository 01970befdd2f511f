// What the composer's text becomes before it reaches the agent: a project slash command expanded,
// the attachments added (prompt.ts), and the @-mentions Tether resolves on the workspace side
// (mentions.ts). No vscode import.

import type { CommandInfo } from "../generated/core";
import type { Attachment } from "../contract/protocol";
import type { ProjectSource } from "./contextSync";
import { resolveMentions, type Problem } from "./mentions";
import { expandCommand, type ProjectCommand } from "./projectCommands";
import { buildPrompt, type PromptImage } from "./prompt";

/** The largest file a line-range mention reads. */
const MAX_MENTION_FILE_BYTES = 10 * 1024 * 1024;

/** What the IDE knows that the workspace's files do not: terminals and the Problems list. */
export interface IdeSources {
  terminalOutput(name: string): Promise<string | undefined>;
  problems(): Problem[];
}

export interface ComposeContext {
  projectCommands: readonly ProjectCommand[];
  /** The agent's own commands: a project command of the same name is the agent's to run. */
  agentCommands: readonly CommandInfo[];
  /** The project, once a session was prepared for it (mentions of files need it). */
  project?: ProjectSource;
  ide?: IdeSources;
}

export async function composePrompt(text: string, attachments: Attachment[], context: ComposeContext): Promise<{ text: string; images: PromptImage[] }> {
  const expanded = expandCommand(text, context.projectCommands, context.agentCommands) ?? text;
  const prompt = buildPrompt(expanded, attachments);
  const { project, ide } = context;
  if (!project) return prompt;
  const { text: resolved } = await resolveMentions(prompt.text, {
    root: project.root,
    readText: async (file) => new TextDecoder().decode(await project.host.readFile(file, MAX_MENTION_FILE_BYTES)),
    listFolder: async (folder) =>
      (await project.host.readDir(folder)).map((e) => (e.kind === "directory" ? `${e.name}/` : e.name)).sort(),
    terminalOutput: (name) => ide?.terminalOutput(name),
    problems: () => ide?.problems() ?? [],
  });
  return { text: resolved, images: prompt.images };
}
