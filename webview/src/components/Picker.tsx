import { useEffect, useRef, useState } from "preact/hooks";
import { Icon } from "./common";

export interface PickerOption {
  id: string;
  label: string;
  description?: string;
}

interface PickerProps {
  /** Accessible name, e.g. "Mode". */
  name: string;
  icon?: string;
  value: string;
  options: readonly PickerOption[];
  onSelect: (id: string) => void;
  disabled?: boolean;
  className?: string;
  /** Shorter text for the button (the list shows the full labels). */
  buttonLabel?: string;
}

let pickerSeq = 0;

/** A button that opens a listbox (keyboard: arrows, Home/End, Enter/Space, Escape, type-ahead). */
export function Picker({ name, icon, value, options, onSelect, disabled, className, buttonLabel }: PickerProps) {
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const listRef = useRef<HTMLUListElement>(null);
  const idRef = useRef(`picker-${++pickerSeq}`);
  const id = idRef.current;
  const current = options.find((o) => o.id === value);

  useEffect(() => {
    if (!open) return;
    const list = listRef.current;
    list?.focus();
    // Keep the popup inside a narrow sidebar (CSSOM, allowed by the CSP).
    if (list) {
      const r = list.getBoundingClientRect();
      const overflow = r.right - (window.innerWidth - 4);
      if (overflow > 0) list.style.setProperty("left", `${-Math.min(overflow, r.left - 4)}px`);
    }
    const onDown = (e: MouseEvent) => {
      const t = e.target as Node;
      if (!listRef.current?.contains(t) && !buttonRef.current?.contains(t)) setOpen(false);
    };
    document.addEventListener("mousedown", onDown);
    return () => document.removeEventListener("mousedown", onDown);
  }, [open]);

  useEffect(() => {
    if (!open) return;
    listRef.current?.querySelector<HTMLElement>(`#${id}-opt-${active}`)?.scrollIntoView({ block: "nearest" });
  }, [open, active]);

  const openList = () => {
    const i = options.findIndex((o) => o.id === value);
    setActive(i >= 0 ? i : 0);
    setOpen(true);
  };
  const close = (focusButton: boolean) => {
    setOpen(false);
    if (focusButton) buttonRef.current?.focus();
  };
  const choose = (i: number) => {
    const opt = options[i];
    close(true);
    if (opt && opt.id !== value) onSelect(opt.id);
  };

  return (
    <div class={`picker ${className ?? ""}`} data-name={name}>
      <button
        ref={buttonRef}
        type="button"
        class="picker-button"
        aria-haspopup="listbox"
        aria-expanded={open}
        aria-controls={open ? `${id}-list` : undefined}
        aria-label={`${name}: ${current?.label ?? value}`}
        title={current?.description ? `${name}: ${current.label} — ${current.description}` : `${name}: ${current?.label ?? value}`}
        disabled={disabled || options.length === 0}
        onClick={() => (open ? close(false) : openList())}
        onKeyDown={(e) => {
          if (e.key === "ArrowDown" || e.key === "ArrowUp") {
            e.preventDefault();
            openList();
          }
        }}
      >
        {icon ? <Icon name={icon} /> : null}
        <span class="picker-label">{buttonLabel ?? current?.label ?? (value || name)}</span>
        <Icon name="chevron-down" className="picker-chevron" />
      </button>
      {open ? (
        <ul
          ref={listRef}
          id={`${id}-list`}
          class="picker-list"
          role="listbox"
          aria-label={name}
          tabIndex={-1}
          aria-activedescendant={`${id}-opt-${active}`}
          onKeyDown={(e) => {
            if (e.key === "ArrowDown") {
              e.preventDefault();
              setActive((active + 1) % options.length);
            } else if (e.key === "ArrowUp") {
              e.preventDefault();
              setActive((active - 1 + options.length) % options.length);
            } else if (e.key === "Home") {
              e.preventDefault();
              setActive(0);
            } else if (e.key === "End") {
              e.preventDefault();
              setActive(options.length - 1);
            } else if (e.key === "Enter" || e.key === " ") {
              e.preventDefault();
              choose(active);
            } else if (e.key === "Escape" || e.key === "Tab") {
              e.preventDefault();
              close(true);
            } else if (e.key.length === 1) {
              const k = e.key.toLowerCase();
              const start = (active + 1) % options.length;
              for (let j = 0; j < options.length; j++) {
                const idx = (start + j) % options.length;
                if (options[idx]!.label.toLowerCase().startsWith(k)) {
                  setActive(idx);
                  break;
                }
              }
            }
          }}
        >
          {options.map((o, i) => (
            <li
              key={o.id}
              id={`${id}-opt-${i}`}
              role="option"
              aria-selected={o.id === value}
              class={`picker-option${i === active ? " active" : ""}${o.id === value ? " selected" : ""}`}
              data-id={o.id}
              onMouseEnter={() => setActive(i)}
              onClick={() => choose(i)}
            >
              <span class="picker-check">{o.id === value ? <Icon name="check" /> : null}</span>
              <span class="picker-text">
                <span class="picker-option-label">{o.label}</span>
                {o.description ? <span class="picker-option-desc">{o.description}</span> : null}
              </span>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
