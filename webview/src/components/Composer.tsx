import { useEffect, useLayoutEffect, useReducer, useRef, useState } from "preact/hooks";
import type { Attachment, FileSuggestion, UiState } from "@tether/contract/protocol";
import { matchCommands, mergeCommands } from "@tether/contract/commands";
import { store } from "../store";
import { flushPersist, loadPersisted, persist, post } from "../vscode";
import { basename, uid } from "../util";
import { Icon } from "./common";
import { memo, shallowEqual } from "../memo";

const MENTION_DEBOUNCE_MS = 120;
const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
const MAX_TEXTAREA_PX = 240;

interface Mention {
  start: number;
  end: number;
  query: string;
}

/** The "/command" the draft starts with, when the caret is still in it. */
export function findSlash(text: string, caret: number): Mention | null {
  const m = /^\/([^\s/]*)$/.exec(text.slice(0, caret));
  return m ? { start: 0, end: caret, query: m[1]! } : null;
}

/** The "@query" token ending at the caret, if any. */
export function findMention(text: string, caret: number): Mention | null {
  const before = text.slice(0, caret);
  const m = /(^|[\s(])@([^\s@]*)$/.exec(before);
  if (!m) return null;
  const start = caret - m[2]!.length - 1;
  return { start, end: caret, query: m[2]! };
}

/** A mention's query split into what to search for and a line range typed after it
 * (`app.js#L10-20` searches `app.js` and keeps `#L10-20`). */
export function splitRange(query: string): { search: string; range: string } {
  const m = /^(.*?)(#L\d*(?:-L?\d*)?)$/.exec(query);
  return m ? { search: m[1]!, range: m[2]! } : { search: query, range: "" };
}

/** What accepting a suggestion writes into the draft. */
export function mentionText(item: FileSuggestion, range: string): string {
  if (item.kind === "folder") return `@${item.path.replace(/\/*$/, "/")}`;
  if (item.kind === "terminal") return `@terminal:${item.path}`;
  if (item.kind === "problems") return "@problems";
  return `@${item.label || item.path}${/^#L\d+(-L?\d+)?$/.test(range) ? range : ""}`;
}

/** Whether this Enter sends (`tether.sendWith`): plain Enter by default, Shift+Enter when set so;
 * the other one starts a new line. */
export function isSendKey(e: { shiftKey: boolean }, sendWith: "enter" | "shiftEnter" | undefined): boolean {
  return sendWith === "shiftEnter" ? e.shiftKey : !e.shiftKey;
}

const SUGGESTION_ICONS = { file: "file", folder: "folder", terminal: "terminal", problems: "warning" } as const;

function chipLabel(a: Attachment): string {
  if (a.kind === "image") return a.mimeType ?? "image";
  const name = basename(a.path ?? (a.kind === "selection" ? "selection" : "file"));
  return a.kind === "selection" && a.range ? `${name}:${a.range.startLine}-${a.range.endLine}` : name;
}

function sameAttachment(a: Attachment, b: Attachment): boolean {
  return a.kind === b.kind && a.path === b.path && a.dataUrl === b.dataUrl && a.range?.startLine === b.range?.startLine && a.range?.endLine === b.range?.endLine;
}

interface ComposerProps {
  busy: boolean;
  connected: boolean;
  initialized: boolean;
  /** The header state (commands, send key, agent label); a new object whenever it changes. */
  state: UiState;
  /** The file suggestions last received (a new object each time). */
  suggestions: typeof store.suggestions;
  /** Changes while the extension's composer commands wait in `store.composerInbox` (0 when none). */
  inbox: number;
}

/** The composer re-renders only when its props change, not on every streamed delta. */
export const Composer = memo(ComposerView, shallowEqual);

function ComposerView({ busy, connected, initialized, state, suggestions: received, inbox }: ComposerProps) {
  const persisted = useRef(loadPersisted());
  const [text, setText] = useState(persisted.current.draft);
  const [attachments, setAttachments] = useState<Attachment[]>(persisted.current.attachments);
  const [mention, setMention] = useState<Mention | null>(null);
  /** A slash command being typed: the agent's commands that match it. */
  const [slash, setSlash] = useState<Mention | null>(null);
  const [active, setActive] = useState(0);
  const [dismissed, setDismissed] = useState(false);
  const [imageError, setImageError] = useState("");
  const taRef = useRef<HTMLTextAreaElement>(null);
  /** Where the caret goes once an accepted mention is rendered. Set in the same commit as the new
   * text: a frame later, keys typed meanwhile would land before the caret moved. */
  const pendingCaret = useRef<number | null>(null);
  useLayoutEffect(() => {
    const caret = pendingCaret.current;
    const ta = taRef.current;
    if (caret === null || !ta) return;
    pendingCaret.current = null;
    ta.focus();
    ta.setSelectionRange(caret, caret);
  });
  const requestIdRef = useRef<string>("");
  /** Another request's suggestions stop showing once a new request is out. */
  const [, rerender] = useReducer((x: number) => x + 1, 0);
  const timerRef = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const sentHistory = useRef<string[]>([]);
  const historyIndex = useRef(-1);

  // Messages for the composer from the extension (prefill/addAttachment/focus).
  useEffect(() => {
    if (!store.composerInbox.length) return;
    const waiting = store.composerInbox.splice(0);
    let nextText = text;
    let nextAtt = attachments;
    let focus = false;
    for (const item of waiting) {
      if (item.type === "prefill") {
        nextText = nextText ? `${nextText}${nextText.endsWith("\n") ? "" : "\n"}${item.text}` : item.text;
        focus = true;
      } else if (item.type === "attachment") {
        if (!nextAtt.some((a) => sameAttachment(a, item.attachment))) nextAtt = [...nextAtt, item.attachment];
        focus = true;
      } else {
        focus = true;
      }
    }
    if (nextText !== text) setText(nextText);
    if (nextAtt !== attachments) setAttachments(nextAtt);
    if (focus) taRef.current?.focus();
  }, [inbox]);

  useEffect(() => {
    persist({ draft: text, attachments });
  }, [text, attachments]);

  useEffect(() => {
    const onHide = () => flushPersist();
    window.addEventListener("pagehide", onHide);
    return () => window.removeEventListener("pagehide", onHide);
  }, []);

  // Auto-grow the textarea (CSSOM; allowed by the CSP).
  useLayoutEffect(() => {
    const ta = taRef.current;
    if (!ta) return;
    ta.style.setProperty("height", "auto");
    // An empty box is one row high as it is: no layout forced (the first render stays short).
    if (!text) return;
    ta.style.setProperty("height", `${Math.min(MAX_TEXTAREA_PX, ta.scrollHeight)}px`);
  }, [text]);

  const suggestions: FileSuggestion[] = mention && received && received.requestId === requestIdRef.current ? received.items : [];
  const popupOpen = !!mention && !dismissed;
  const loadingSuggestions = popupOpen && received?.requestId !== requestIdRef.current;
  const activeIndex = suggestions.length ? Math.min(active, suggestions.length - 1) : -1;

  const allCommands = mergeCommands(state.commands ?? [], state.projectCommands ?? []);
  const commands = slash ? matchCommands(allCommands, slash.query) : [];
  const commandsOpen = !!slash && !dismissed && commands.length > 0;
  const activeCommand = commands.length ? Math.min(active, commands.length - 1) : -1;
  const acceptCommand = (name: string) => {
    if (!slash) return;
    const insert = `/${name} `;
    setText(insert + text.slice(slash.end).replace(/^\s+/, ""));
    setSlash(null);
    pendingCaret.current = insert.length;
  };

  const updateMention = (value: string, caret: number) => {
    const command = findSlash(value, caret);
    if (command?.query !== slash?.query || !!command !== !!slash) {
      setSlash(command);
      setActive(0);
      setDismissed(false);
    }
    const m = findMention(value, caret);
    if (!m) {
      if (mention) setMention(null);
      if (timerRef.current) clearTimeout(timerRef.current);
      return;
    }
    if (!mention || mention.query !== m.query || mention.start !== m.start) {
      setMention(m);
      setActive(0);
      setDismissed(false);
      if (timerRef.current) clearTimeout(timerRef.current);
      timerRef.current = setTimeout(() => {
        const requestId = uid("files");
        requestIdRef.current = requestId;
        post({ type: "suggestFiles", requestId, query: splitRange(m.query).search });
        rerender(undefined);
      }, MENTION_DEBOUNCE_MS);
    } else if (mention.end !== m.end) {
      setMention(m);
    }
  };

  const acceptSuggestion = (item: FileSuggestion) => {
    if (!mention) return;
    const { range } = splitRange(mention.query);
    const insert = `${mentionText(item, range)} `;
    const next = text.slice(0, mention.start) + insert + text.slice(mention.end);
    const caret = mention.start + insert.length;
    setText(next);
    setMention(null);
    // A file is a chip; a range, folder, terminal or the Problems list lives in the text.
    const plainFile = (item.kind ?? "file") === "file" && !insert.includes("#L");
    if (plainFile && !attachments.some((a) => a.kind === "file" && a.path === item.path)) {
      setAttachments([...attachments, { kind: "file", path: item.path }]);
    }
    pendingCaret.current = caret;
  };

  const canSend = initialized && connected && (text.trim().length > 0 || attachments.length > 0);

  const send = () => {
    if (!canSend) return;
    post({ type: "sendPrompt", text, attachments });
    store.requestStick();
    if (text.trim()) sentHistory.current.push(text);
    historyIndex.current = -1;
    setText("");
    setAttachments([]);
    setMention(null);
    persist({ draft: "", attachments: [] });
    flushPersist();
  };

  const addImages = (files: File[]) => {
    for (const file of files) {
      if (!file.type.startsWith("image/")) continue;
      if (file.size > MAX_IMAGE_BYTES) {
        setImageError(`${file.name || "Image"} is larger than 5 MB`);
        continue;
      }
      const reader = new FileReader();
      reader.onload = () => {
        const dataUrl = String(reader.result ?? "");
        if (!dataUrl.startsWith("data:image/")) return;
        setImageError("");
        setAttachments((prev) => [...prev, { kind: "image", dataUrl, mimeType: file.type }]);
      };
      reader.readAsDataURL(file);
    }
  };

  const onKeyDown = (e: KeyboardEvent) => {
    const ta = e.currentTarget as HTMLTextAreaElement;
    if (commandsOpen) {
      if (e.key === "ArrowDown" || e.key === "ArrowUp") {
        e.preventDefault();
        const step = e.key === "ArrowDown" ? 1 : commands.length - 1;
        setActive((activeCommand + step) % commands.length);
        return;
      }
      if ((e.key === "Enter" || e.key === "Tab") && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        acceptCommand(commands[activeCommand]!.name);
        return;
      }
      if (e.key === "Escape") {
        e.preventDefault();
        setDismissed(true);
        return;
      }
    }
    if (popupOpen && suggestions.length) {
      if (e.key === "ArrowDown") {
        e.preventDefault();
        setActive((activeIndex + 1) % suggestions.length);
        return;
      }
      if (e.key === "ArrowUp") {
        e.preventDefault();
        setActive((activeIndex - 1 + suggestions.length) % suggestions.length);
        return;
      }
      if ((e.key === "Enter" || e.key === "Tab") && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        acceptSuggestion(suggestions[activeIndex]!);
        return;
      }
    }
    if (e.key === "Escape") {
      if (popupOpen) {
        e.preventDefault();
        setDismissed(true);
        return;
      }
      if (busy) {
        e.preventDefault();
        post({ type: "stop" });
        return;
      }
    }
    if (e.key === "Enter" && isSendKey(e, state.sendWith) && !e.isComposing && e.keyCode !== 229) {
      e.preventDefault();
      send();
      return;
    }
    // Recall earlier prompts with ArrowUp/ArrowDown in an empty (or recalled) composer.
    if ((e.key === "ArrowUp" || e.key === "ArrowDown") && !e.shiftKey && !e.altKey) {
      const hist = sentHistory.current;
      const recalling = historyIndex.current >= 0;
      if (!hist.length || (!recalling && text !== "")) return;
      if (e.key === "ArrowUp" && ta.selectionStart === 0) {
        e.preventDefault();
        const i = recalling ? Math.max(0, historyIndex.current - 1) : hist.length - 1;
        historyIndex.current = i;
        setText(hist[i]!);
      } else if (e.key === "ArrowDown" && recalling && ta.selectionEnd === ta.value.length) {
        e.preventDefault();
        const i = historyIndex.current + 1;
        if (i >= hist.length) {
          historyIndex.current = -1;
          setText("");
        } else {
          historyIndex.current = i;
          setText(hist[i]!);
        }
      }
    }
  };

  const listId = "mention-list";
  const agent = state.agentLabel ?? "Claude";
  const slashHint = allCommands.length ? ", / for a command" : "";
  const placeholder = !initialized
    ? "Starting…"
    : !connected
      ? "Disconnected"
      : busy
        ? `${agent} is working… (Esc to stop; you can queue a message)`
        : `Ask ${agent} — @ to mention a file${slashHint}, ${state.sendWith === "shiftEnter" ? "Shift+Enter to send" : "Shift+Enter for a new line"}`;

  return (
    <div class={`composer${busy ? " busy" : ""}`}>
      {commandsOpen ? (
        <div class="mention-popup">
          <ul id="command-list" class="mention-list" role="listbox" aria-label="Commands">
            {commands.map((c, i) => (
              <li
                key={c.name}
                id={`command-list-${i}`}
                role="option"
                aria-selected={i === activeCommand}
                class={`mention-item${i === activeCommand ? " active" : ""}`}
                data-command={c.name}
                onMouseDown={(e) => {
                  e.preventDefault();
                  acceptCommand(c.name);
                }}
                onMouseEnter={() => setActive(i)}
              >
                <Icon name="symbol-event" />
                <span class="mention-label">{`/${c.name}`}</span>
                {c.description || c.argumentHint ? <span class="mention-path muted">{c.argumentHint ? `${c.argumentHint} — ` : ""}{c.description}</span> : null}
              </li>
            ))}
          </ul>
        </div>
      ) : popupOpen ? (
        <div class="mention-popup">
          {suggestions.length ? (
            <ul id={listId} class="mention-list" role="listbox" aria-label="Files">
              {suggestions.map((s, i) => (
                <li
                  key={s.path}
                  id={`${listId}-${i}`}
                  role="option"
                  aria-selected={i === activeIndex}
                  class={`mention-item${i === activeIndex ? " active" : ""}`}
                  data-path={s.path}
                  onMouseDown={(e) => {
                    e.preventDefault();
                    acceptSuggestion(s);
                  }}
                  onMouseEnter={() => setActive(i)}
                >
                  <Icon name={SUGGESTION_ICONS[s.kind ?? "file"]} />
                  <span class="mention-label">{s.label || basename(s.path)}</span>
                  {s.detail ? <span class="mention-path muted">{s.detail}</span> : s.label !== s.path ? <span class="mention-path muted">{s.path}</span> : null}
                </li>
              ))}
            </ul>
          ) : (
            <div class="mention-empty muted small" role="status">
              {loadingSuggestions ? "Searching…" : "No matching files, folders or terminals"}
            </div>
          )}
        </div>
      ) : null}
      <div class="composer-box">
        {attachments.length ? (
          <div class="chips composer-chips" aria-label="Attachments">
            {attachments.map((a, i) => (
              <span key={i} class={`chip chip-${a.kind}`} title={a.path ?? a.mimeType}>
                {a.kind === "image" && a.dataUrl ? (
                  <img src={a.dataUrl} alt="Pasted image" />
                ) : (
                  <Icon name={a.kind === "selection" ? "list-selection" : "file"} />
                )}
                <span class="chip-label">{chipLabel(a)}</span>
                <button
                  type="button"
                  class="chip-remove"
                  aria-label={`Remove ${chipLabel(a)}`}
                  title="Remove"
                  onClick={() => {
                    setAttachments(attachments.filter((_, j) => j !== i));
                    taRef.current?.focus();
                  }}
                >
                  <Icon name="close" />
                </button>
              </span>
            ))}
          </div>
        ) : null}
        <textarea
          ref={taRef}
          class="composer-input"
          rows={1}
          value={text}
          placeholder={placeholder}
          aria-label={`Message to ${agent}`}
          aria-autocomplete="list"
          aria-controls={commandsOpen ? "command-list" : popupOpen && suggestions.length ? listId : undefined}
          aria-activedescendant={
            commandsOpen ? `command-list-${activeCommand}` : popupOpen && activeIndex >= 0 ? `${listId}-${activeIndex}` : undefined
          }
          onInput={(e) => {
            const ta = e.currentTarget as HTMLTextAreaElement;
            setText(ta.value);
            historyIndex.current = -1;
            updateMention(ta.value, ta.selectionStart);
          }}
          onKeyDown={onKeyDown}
          onKeyUp={(e) => {
            if (e.key === "ArrowLeft" || e.key === "ArrowRight" || e.key === "Home" || e.key === "End") {
              const ta = e.currentTarget as HTMLTextAreaElement;
              updateMention(ta.value, ta.selectionStart);
            }
          }}
          onClick={(e) => {
            const ta = e.currentTarget as HTMLTextAreaElement;
            updateMention(ta.value, ta.selectionStart);
          }}
          onBlur={() => setDismissed(true)}
          onFocus={() => setDismissed(false)}
          onPaste={(e) => {
            const items = Array.from(e.clipboardData?.items ?? []);
            const files = items.filter((it) => it.kind === "file" && it.type.startsWith("image/")).map((it) => it.getAsFile());
            const images = files.filter((f): f is File => !!f);
            if (images.length) {
              if (!e.clipboardData?.getData("text/plain")) e.preventDefault();
              addImages(images);
            }
          }}
          onDragOver={(e) => {
            if (e.dataTransfer?.types.includes("Files")) e.preventDefault();
          }}
          onDrop={(e) => {
            const files = Array.from(e.dataTransfer?.files ?? []).filter((f) => f.type.startsWith("image/"));
            if (files.length) {
              e.preventDefault();
              addImages(files);
            }
          }}
        />
        {imageError ? (
          <div class="composer-error small" role="alert">
            {imageError}
          </div>
        ) : null}
        <div class="composer-actions">
          <button
            type="button"
            class="icon-button"
            title="Mention a file (@)"
            aria-label="Mention a file"
            disabled={!initialized}
            onClick={() => {
              const ta = taRef.current;
              if (!ta) return;
              const pos = ta.selectionStart;
              const needsSpace = pos > 0 && !/\s/.test(text[pos - 1] ?? "");
              const insert = `${needsSpace ? " " : ""}@`;
              const next = text.slice(0, pos) + insert + text.slice(ta.selectionEnd);
              setText(next);
              const caret = pos + insert.length;
              requestAnimationFrame(() => {
                ta.focus();
                ta.setSelectionRange(caret, caret);
                updateMention(next, caret);
              });
            }}
          >
            <Icon name="mention" />
          </button>
          <span class="spacer" />
          {busy ? (
            <button type="button" class="button button-secondary stop-button" title="Stop (Esc)" onClick={() => post({ type: "stop" })}>
              <Icon name="debug-stop" /> Stop
            </button>
          ) : null}
          <button
            type="button"
            class="button send-button"
            title={state.sendWith === "shiftEnter" ? "Send (Shift+Enter)" : "Send (Enter)"}
            aria-label="Send"
            disabled={!canSend}
            onClick={send}
          >
            <Icon name="send" />
          </button>
        </div>
      </div>
    </div>
  );
}
