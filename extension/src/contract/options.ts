// Which of an agent's options is its model: the one the header's model picker shows (the extension
// fills the picker from it, the webview leaves it out of the other options' pickers).

import type { AgentOption } from "@tether/core";

export function isModelOption(option: AgentOption): boolean {
  return option.category === "model" && option.kind === "select";
}

/** The agent's model option, if it has one. */
export function modelOption(options: readonly AgentOption[]): AgentOption | undefined {
  return options.find(isModelOption);
}
