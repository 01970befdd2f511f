// A form the agent asks the user to fill in (Claude Code's AskUserQuestion, an ACP agent's form
// elicitation): single choices as radio buttons, multiple choices as checkboxes, each with an
// "Other" text where offered, and text fields. The answers go back by field id.

import { useState } from "preact/hooks";
import type { FormField, FormValue, QuestionForm } from "@tether/core";

export type FormAnswers = Record<string, FormValue>;

interface FieldState {
  picked: string[];
  other: string;
  otherOn: boolean;
}

const EMPTY: FieldState = { picked: [], other: "", otherOn: false };

/** The answers of the fields the user filled in. */
export function answersOf(form: QuestionForm, state: Record<string, FieldState>): FormAnswers {
  const answers: FormAnswers = {};
  for (const field of form.fields) {
    const s = state[field.id] ?? EMPTY;
    const other = s.other.trim();
    if (field.kind === "text") {
      if (other) answers[field.id] = other;
    } else if (field.kind === "multiple") {
      const items = [...s.picked, ...(s.otherOn && other ? [other] : [])];
      if (items.length) answers[field.id] = items;
    } else {
      const one = s.otherOn ? other : s.picked[0];
      if (one) answers[field.id] = one;
    }
  }
  return answers;
}

function Field({ field, index, state, set, disabled }: {
  field: FormField;
  index: number;
  state: FieldState;
  set(next: FieldState): void;
  disabled: boolean;
}) {
  const name = `q-${index}`;
  const heading = field.question ?? field.label ?? field.id;
  const chip = field.question && field.label ? field.label : undefined;
  if (field.kind === "text") {
    // A short label names the box; a longer question is its hint.
    const name = field.label ?? heading;
    return (
      <label class="form-field form-text">
        <span class="form-question">{name}</span>
        <input
          type="text"
          class="input"
          value={state.other}
          disabled={disabled}
          aria-label={name}
          placeholder={field.label && field.question ? field.question : undefined}
          onInput={(e) => set({ ...state, other: (e.target as HTMLInputElement).value })}
        />
      </label>
    );
  }
  const multiple = field.kind === "multiple";
  const toggle = (value: string, on: boolean) => {
    if (!multiple) return set({ ...state, picked: [value], otherOn: false });
    set({ ...state, picked: on ? [...state.picked, value] : state.picked.filter((v) => v !== value) });
  };
  return (
    <fieldset class="form-field" disabled={disabled}>
      <legend class="form-question">
        {chip ? <span class="badge badge-info form-chip">{chip}</span> : null} {heading}
        {multiple ? <span class="muted small"> (any)</span> : null}
      </legend>
      {field.options.map((option) => (
        <label class="form-choice" key={option.value}>
          <input
            type={multiple ? "checkbox" : "radio"}
            name={name}
            checked={state.picked.includes(option.value) && !(state.otherOn && !multiple)}
            onChange={(e) => toggle(option.value, (e.target as HTMLInputElement).checked)}
          />
          <span class="form-choice-label">{option.label}</span>
          {option.description ? <span class="muted small form-choice-desc">{option.description}</span> : null}
        </label>
      ))}
      {field.other ? (
        <label class="form-choice form-other">
          <input
            type={multiple ? "checkbox" : "radio"}
            name={name}
            checked={state.otherOn}
            aria-label="Other"
            onChange={(e) => set({ ...state, otherOn: (e.target as HTMLInputElement).checked, picked: multiple ? state.picked : [] })}
          />
          <input
            type="text"
            class="input form-other-text"
            placeholder="Other…"
            aria-label={`Other answer to: ${heading}`}
            value={state.other}
            onFocus={() => !state.otherOn && set({ ...state, otherOn: true, picked: multiple ? state.picked : [] })}
            onInput={(e) => set({ ...state, other: (e.target as HTMLInputElement).value, otherOn: true, picked: multiple ? state.picked : [] })}
          />
        </label>
      ) : null}
    </fieldset>
  );
}

/** The form's fields; `onSubmit` gets the answers. `title` is what the card already says. */
export function QuestionFormView({ form, title, disabled, onSubmit, onSkip }: {
  form: QuestionForm;
  title: string;
  disabled: boolean;
  onSubmit(answers: FormAnswers): void;
  onSkip(): void;
}) {
  const [state, setState] = useState<Record<string, FieldState>>({});
  const answers = answersOf(form, state);
  const missing = form.fields.some((field) => field.required && answers[field.id] === undefined);
  return (
    <form
      class="question-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (!missing) onSubmit(answers);
      }}
    >
      {form.message && form.message !== title ? <div class="form-message">{form.message}</div> : null}
      {form.fields.map((field, i) => (
        <Field
          key={field.id}
          field={field}
          index={i}
          state={state[field.id] ?? EMPTY}
          set={(next) => setState({ ...state, [field.id]: next })}
          disabled={disabled}
        />
      ))}
      <div class="perm-actions" role="group" aria-label="Answer">
        <button type="submit" class="button perm-allow" disabled={disabled || missing || !Object.keys(answers).length}>
          Submit
        </button>
        <button type="button" class="button button-secondary perm-deny" disabled={disabled} onClick={onSkip}>
          Skip
        </button>
      </div>
    </form>
  );
}
