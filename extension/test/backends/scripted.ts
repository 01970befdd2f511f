// A made-up agent for the tests: a backend module nothing in extension/src knows, added to a
// registry by one line (sessions.test.ts). Its agent is tests/acp/fake-agent.mjs, a scripted ACP
// agent (no model) that reads the workspace's notes.txt through Tether and says so, run with the
// ACP backend's connector.

import * as path from "node:path";
import { acpConnector } from "../../src/backends/acp";
import type { BackendModule } from "../../src/backends/backend";

/** The fake agent, from the bundled test in target/ext-tests. */
export const FAKE_AGENT = path.resolve(__dirname, "../../tests/acp/fake-agent.mjs");

export const scriptedBackend: BackendModule<null> = {
  agents: () => [{ name: "scripted", displayName: "Scripted agent", backend: scriptedBackend, spec: null }],
  connector: async (entry, request) =>
    acpConnector(
      {
        name: entry.name,
        displayName: entry.displayName,
        command: process.execPath,
        args: [FAKE_AGENT],
        env: { FAKE_ACP_SCENARIO: "read-bench", FAKE_ACP_READS: "1" },
      },
      path.join(request.place.storageDir, entry.name),
      request,
    ),
  history: { kind: "agent" },
};
