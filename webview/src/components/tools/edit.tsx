// Editing files: Edit, MultiEdit and Write as an inline diff, NotebookEdit as the new cell source.

import type { Hunk } from "@tether/core";
import { store, type ToolCall } from "../../store";
import { arr, basename, bool, dirname, isObject, num, plural, str } from "../../util";
import { FileLink, PathDir } from "../common";
import { DiffStats, DiffView, hunksFromInput, hunksFromStructured } from "../Diff";
import { Badge, ErrorText, OutputBlock, ToolFrame } from "./frame";

/** The real patch once the call succeeded, else a preview from the input. */
function editHunks(call: ToolCall): Hunk[] | undefined {
  const fromResult = call.result && !call.result.isError ? hunksFromStructured(call.result.structured) : undefined;
  if (fromResult && fromResult.length) return fromResult;
  return hunksFromInput(call.name, call.input);
}

export function EditView({ call }: { call: ToolCall }) {
  const s = call.result?.structured;
  const path = str(call.input, "file_path") ?? (isObject(s) ? str(s, "filePath") : undefined) ?? "";
  const hunks = editHunks(call) ?? [];
  const isWrite = call.name === "Write";
  const created = isWrite && (isObject(s) ? str(s, "type") === "create" : false);
  const label = isWrite ? (created ? "Create" : "Write") : "Edit";
  const edits = call.name === "MultiEdit" ? arr(call.input, "edits")?.length : undefined;
  return (
    <ToolFrame
      call={call}
      icon={isWrite ? "new-file" : "edit"}
      label={label}
      summary={
        <>
          {path ? <FileLink path={path} line={hunks[0]?.newStart || undefined} /> : null}
          {path ? <PathDir path={path} /> : null}
        </>
      }
      badges={
        <>
          {edits ? <span class="muted small">{plural(edits, "edit")}</span> : null}
          {bool(s, "userModified") ? <Badge tone="info">modified by you</Badge> : null}
          {hunks.length ? <DiffStats hunks={hunks} /> : null}
        </>
      }
      defaultOpen={true}
      after={<ErrorText call={call} />}
      body={
        // While it waits for approval the change is reviewed in the editor, not here too.
        hunks.length && call.status !== "error" && !call.awaitingApproval ? (
          <DiffView
            hunks={hunks}
            expanded={!!call.ui.diffAll}
            onToggle={() => store.toggleCall(call, "diffAll")}
            label={`Diff of ${basename(path)}`}
          />
        ) : undefined
      }
    />
  );
}

export function NotebookEditView({ call }: { call: ToolCall }) {
  const path = str(call.input, "notebook_path") ?? "";
  const cell = str(call.input, "cell_id") ?? (num(call.input, "cell_number")?.toString() ?? "");
  const modeName = str(call.input, "edit_mode") ?? "replace";
  const source = str(call.input, "new_source") ?? "";
  return (
    <ToolFrame
      call={call}
      icon="notebook"
      label="Notebook"
      summary={
        <>
          {path ? <FileLink path={path} /> : null}
          <span class="muted">{` ${modeName}${cell ? ` cell ${cell}` : ""}`}</span>
        </>
      }
      defaultOpen={true}
      after={<ErrorText call={call} />}
      body={source && modeName !== "delete" ? <OutputBlock text={source} call={call} flag="srcAll" /> : undefined}
    />
  );
}
