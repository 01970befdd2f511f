import type { PersistedWebviewState, WebviewToExtension } from "@tether/contract/protocol";

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare global {
  // Provided by VS Code inside webviews (and by the test harness).
  function acquireVsCodeApi(): VsCodeApi;
}

let api: VsCodeApi | undefined;

function getApi(): VsCodeApi {
  if (!api) {
    if (typeof acquireVsCodeApi === "function") {
      api = acquireVsCodeApi();
    } else {
      // Outside VS Code (e.g. opened directly in a browser): a no-op stand-in.
      let state: unknown;
      api = {
        postMessage: (m) => console.debug("[tether] postMessage", m),
        getState: () => state,
        setState: (s) => {
          state = s;
        },
      };
    }
  }
  return api;
}

export function post(message: WebviewToExtension): void {
  getApi().postMessage(message);
}

export function loadPersisted(): PersistedWebviewState {
  const raw = getApi().getState() as Partial<PersistedWebviewState> | undefined;
  return {
    draft: typeof raw?.draft === "string" ? raw.draft : "",
    attachments: Array.isArray(raw?.attachments) ? raw.attachments : [],
  };
}

/** The open session an editor tab shows (kept in every state written from now on). */
let boundSession: string | undefined;

/** The open session an editor tab shows: its serializer binds the tab to it after a reload. */
export function rememberSession(key: string): void {
  if (boundSession === key) return;
  boundSession = key;
  const raw = (getApi().getState() ?? {}) as Partial<PersistedWebviewState>;
  getApi().setState({ ...raw, session: key });
}

let persistTimer: ReturnType<typeof setTimeout> | undefined;
let pending: PersistedWebviewState | undefined;

/** Debounced `vscode.setState`. Images are not persisted (data URLs can be large). */
export function persist(state: PersistedWebviewState): void {
  pending = {
    draft: state.draft,
    attachments: state.attachments.filter((a) => a.kind !== "image"),
  };
  if (persistTimer === undefined) {
    persistTimer = setTimeout(flushPersist, 250);
  }
}

export function flushPersist(): void {
  if (persistTimer !== undefined) {
    clearTimeout(persistTimer);
    persistTimer = undefined;
  }
  if (pending) {
    getApi().setState(boundSession ? { ...pending, session: boundSession } : pending);
    pending = undefined;
  }
}
