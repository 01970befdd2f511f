// A user message's actions: Rewind code (the files back to before it), Fork conversation from
// here (a new session up to it), or both. Shown on hover or focus of the message, reachable by
// keyboard (Tab into the message, then the buttons); absent where the session cannot do them.

import { useEffect, useReducer } from "preact/hooks";
import { store } from "../store";
import { post } from "../vscode";
import { Icon } from "./common";

type Action = "rewind" | "fork" | "both";

export function MessageActions({ messageId }: { messageId: string }) {
  const [, force] = useReducer((x: number) => x + 1, 0);
  // The actions follow the session's state (checkpoints on, an agent that can fork at a message).
  useEffect(() => store.subscribe(() => force(undefined)), []);
  const offered = store.state.messageActions;
  if (!offered || (!offered.rewind && !offered.fork) || store.state.busy) return null;
  const act = (action: Action) => post({ type: "messageAction", messageId, action });
  return (
    <div class="message-actions" role="toolbar" aria-label="Message actions">
      {offered.rewind ? (
        <button type="button" class="message-action" title="Put the files back as they were before this message" onClick={() => act("rewind")}>
          <Icon name="discard" />
          <span>Rewind code</span>
        </button>
      ) : null}
      {offered.fork ? (
        <button type="button" class="message-action" title="A new session with the conversation up to this message" onClick={() => act("fork")}>
          <Icon name="repo-forked" />
          <span>Fork conversation from here</span>
        </button>
      ) : null}
      {offered.rewind && offered.fork ? (
        <button type="button" class="message-action" title="Rewind the code, then fork the conversation from this message" onClick={() => act("both")}>
          <Icon name="history" />
          <span>Both</span>
        </button>
      ) : null}
    </div>
  );
}
