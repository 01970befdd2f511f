// What the chat shows when an agent cannot start: the reason with Retry, and, when it is not
// logged in, the ways to log in as buttons (`authenticate` methods the first run answers).

import { NotLoggedInError } from "../backends/backend";
import type { ChatEntry } from "../contract/protocol";

/** The error for a start the user's message needed (Retry sends the message again). */
export function startFailure(error: unknown, agent: string): ChatEntry[] {
  if (error instanceof NotLoggedInError) {
    return [{ type: "error", kind: "notLoggedIn", severity: "error", message: error.message, hint: `${error.hint} Then Retry.`, retryable: true }];
  }
  const message = error instanceof Error ? error.message : String(error);
  return [{ type: "error", kind: "other", severity: "error", message: `Could not start ${agent}: ${message}`, hint: null, retryable: true }];
}

/** The login buttons, when `error` is the agent's not being logged in (else nothing). */
export function loginNeeded(error: unknown): ChatEntry[] {
  if (!(error instanceof NotLoggedInError)) return [];
  return [{ type: "authMethods", methods: error.remedies, required: true, message: `${error.message} ${error.hint}` }];
}
