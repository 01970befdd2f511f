// Shell: a command with its output, and the calls that read or stop a background shell.

import type { ComponentChildren } from "preact";
import type { ToolCall } from "../../store";
import { bool, isObject, num, str } from "../../util";
import { Badge, Code, CommandLine, ErrorText, okContent, OutputBlock, ToolFrame } from "./frame";

export function BashView({ call }: { call: ToolCall }) {
  const input = call.input;
  const command = str(input, "command") ?? "";
  const description = str(input, "description");
  const background = bool(input, "run_in_background");
  const s = call.result?.structured;
  const stdout = isObject(s) ? (str(s, "stdout") ?? "") : "";
  const stderr = isObject(s) ? (str(s, "stderr") ?? "") : "";
  const exitCode = isObject(s) ? num(s, "exitCode") : undefined;
  const interrupted = isObject(s) ? bool(s, "interrupted") : undefined;
  const hasStructured = isObject(s) && ("stdout" in s || "stderr" in s);

  const badges = (
    <>
      {background ? <Badge tone="info">background</Badge> : null}
      {interrupted ? <Badge tone="warn">interrupted</Badge> : null}
      {exitCode !== undefined ? (
        <Badge tone={exitCode === 0 ? "ok" : "error"} title="Exit code">{`exit ${exitCode}`}</Badge>
      ) : call.status === "error" && hasStructured ? (
        <Badge tone="error">failed</Badge>
      ) : null}
    </>
  );

  let output: ComponentChildren = null;
  if (call.result) {
    if (hasStructured) {
      output = (
        <>
          {stdout ? <OutputBlock text={stdout} call={call} flag="outAll" className="stdout" /> : null}
          {stderr ? <OutputBlock text={stderr} call={call} flag="errOutAll" className="stderr" label="stderr" /> : null}
          {!stdout && !stderr ? <div class="muted small output-empty">(no output)</div> : null}
        </>
      );
    } else if (call.result.content) {
      output = (
        <OutputBlock
          text={call.result.content}
          call={call}
          flag="outAll"
          className={call.result.isError ? "stderr" : "stdout"}
        />
      );
    }
  }

  return (
    <ToolFrame
      call={call}
      icon="terminal"
      label={description || "Run command"}
      badges={badges}
      sub={<CommandLine command={command} folded={!call.ui.open} />}
      defaultOpen={true}
      body={output}
    />
  );
}

/** BashOutput reads a background shell; KillShell (and its older names) stops one. */
export function ShellControlView({ call }: { call: ToolCall }) {
  const id = str(call.input, "bash_id") ?? str(call.input, "shell_id") ?? str(call.input, "task_id") ?? "";
  const kill = call.name !== "BashOutput";
  const content = okContent(call);
  return (
    <ToolFrame
      call={call}
      icon={kill ? "debug-stop" : "output"}
      label={kill ? "Stop shell" : "Shell output"}
      summary={id ? <Code>{id}</Code> : null}
      defaultOpen={!kill}
      after={<ErrorText call={call} />}
      body={content ? <OutputBlock text={content} call={call} flag="outAll" /> : undefined}
    />
  );
}
