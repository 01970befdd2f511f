//! BashOutput and KillShell: the output and the end of a command Bash started in the background.

use super::output::{iso_timestamp, truncate_middle};
use super::ShellRecord;
use super::MAX_OUTPUT_CHARS;
use crate::host::{BackgroundStatus, HostError};
use crate::json::read_struct;
use crate::tools::{parse_input, Host, ToolError, ToolOutput, ToolResult, ToolSpec, Toolset};
use serde_json::{json, Value};

const BASH_OUTPUT_DESCRIPTION: &str = "
- Retrieves output from a running or completed background bash shell
- Takes a bash_id parameter identifying the shell (the ID Bash returned for a command run with run_in_background)
- Always returns only new output since the last check
- Returns stdout and stderr output along with shell status
- Supports optional regex filtering to show only lines matching a pattern
- Use this tool when you need to monitor or check the output of a long-running shell
- If the accumulated output exceeds 30,000 characters, it will be truncated before being returned to you
";

const KILL_SHELL_DESCRIPTION: &str = "
- Kills a running background bash shell by its ID
- Takes a shell_id parameter identifying the shell to kill
- Returns a success or failure status 
- Use this tool when you need to terminate a long-running shell
- Shell IDs are the IDs Bash returned for commands run with run_in_background
";

fn bash_output_schema() -> Value {
    crate::tools::schema(
        r##"{
      "$schema": "https://json-schema.org/draft/2020-12/schema",
      "type": "object",
      "properties": {
        "bash_id": {"type": "string", "description": "The ID of the background shell to retrieve output from"},
        "filter": {"type": "string", "description": "Optional regular expression to filter the output lines. Only lines matching this regex will be included in the result. Any lines that do not match will no longer be available to read."}
      },
      "required": ["bash_id"],
      "additionalProperties": false
    }"##,
    )
}

fn kill_shell_schema() -> Value {
    crate::tools::schema(
        r##"{
      "$schema": "https://json-schema.org/draft/2020-12/schema",
      "type": "object",
      "properties": {
        "shell_id": {"type": "string", "description": "The ID of the background shell to kill"}
      },
      "required": ["shell_id"],
      "additionalProperties": false
    }"##,
    )
}

pub static BASH_OUTPUT_SPEC: ToolSpec = ToolSpec {
    name: "BashOutput",
    title: "BashOutput",
    description: BASH_OUTPUT_DESCRIPTION,
    input_schema: bash_output_schema,
    read_only: true,
    destructive: false,
};

pub static KILL_SHELL_SPEC: ToolSpec = ToolSpec {
    name: "KillShell",
    title: "Kill Shell",
    description: KILL_SHELL_DESCRIPTION,
    input_schema: kill_shell_schema,
    read_only: false,
    // Not "destructive": the CLI then asks for every call even in auto mode, unlike its own Bash.
    destructive: false,
};

struct BashOutputInput {
    bash_id: String,
    filter: Option<String>,
}

read_struct!(BashOutputInput {
    bash_id: required "bash_id",
    filter: default "filter",
});

struct KillShellInput {
    shell_id: String,
}

read_struct!(KillShellInput {
    shell_id: required "shell_id",
});

pub async fn run_bash_output<H: Host>(ts: &Toolset<H>, args: Value) -> ToolResult<ToolOutput> {
    let input: BashOutputInput = parse_input("BashOutput", args)?;
    let filter = match input.filter.as_deref().filter(|f| !f.is_empty()) {
        Some(pattern) => Some(
            regex::RegexBuilder::new(pattern)
                .case_insensitive(true)
                .build()
                .map_err(|e| ToolError(format!("Invalid regex pattern \"{pattern}\": {e}")))?,
        ),
        None => None,
    };
    let shell = find_shell(ts, &input.bash_id)?;
    let status = ts
        .shells
        .read(&ts.host, &input.bash_id, ts.host.now_ms())
        .await
        .map_err(|e| lost_shell(&input.bash_id, e))?;
    let BackgroundStatus {
        stdout,
        stderr,
        running,
        exit_code,
    } = status;
    let state = if running {
        "running"
    } else {
        match exit_code {
            Some(0) => "completed",
            Some(_) => "failed",
            None => "killed",
        }
    };
    let filtered = |text: &str| match &filter {
        Some(re) if !text.trim().is_empty() => text
            .split('\n')
            .filter(|l| re.is_match(l))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => text.to_string(),
    };
    let shown_stdout = truncate_middle(&filtered(&stdout), MAX_OUTPUT_CHARS);
    let shown_stderr = truncate_middle(&filtered(&stderr), MAX_OUTPUT_CHARS);
    let timestamp = iso_timestamp(ts.host.now_ms());
    let mut parts = vec![format!("<status>{state}</status>")];
    if let Some(code) = exit_code {
        parts.push(format!("<exit_code>{code}</exit_code>"));
    }
    if !shown_stdout.trim().is_empty() {
        parts.push(format!("<stdout>\n{}\n</stdout>", shown_stdout.trim_end()));
    }
    if !shown_stderr.trim().is_empty() {
        parts.push(format!("<stderr>\n{}\n</stderr>", shown_stderr.trim()));
    }
    parts.push(format!("<timestamp>{timestamp}</timestamp>"));
    let mut structured = json!({
        "shellId": input.bash_id,
        "command": shell.command,
        "status": state,
        "exitCode": exit_code,
        "stdout": shown_stdout,
        "stderr": shown_stderr,
        "stdoutLines": stdout.split('\n').count(),
        "stderrLines": stderr.split('\n').count(),
        "timestamp": timestamp,
    });
    if let Some(pattern) = input.filter.filter(|f| !f.is_empty()) {
        structured["filterPattern"] = json!(pattern);
    }
    Ok(ToolOutput::text(parts.join("\n\n")).with_structured(structured))
}

pub async fn run_kill_shell<H: Host>(ts: &Toolset<H>, args: Value) -> ToolResult<ToolOutput> {
    let input: KillShellInput = parse_input("KillShell", args)?;
    let id = input.shell_id;
    let shell = find_shell(ts, &id)?;
    let killed = ts.shells.kill(&ts.host, &id).await.map_err(|e| lost_shell(&id, e))?;
    if !killed {
        return Err(ToolError(format!(
            "Shell {id} is not running, so cannot be killed (it has already exited; BashOutput shows its remaining output and exit code)"
        )));
    }
    let result = json!({
        "message": format!("Successfully killed shell: {id} ({})", shell.command),
        "shell_id": id,
    });
    Ok(ToolOutput::text(result.to_string()).with_structured(result))
}

fn find_shell<H: Host>(ts: &Toolset<H>, id: &str) -> ToolResult<ShellRecord> {
    ts.shells.get(id).ok_or_else(|| {
        let known = ts.shells.ids();
        ToolError(if known.is_empty() {
            format!("No shell found with ID: {id}. No background shells have been started in this session; start one with Bash and run_in_background: true.")
        } else {
            format!("No shell found with ID: {id}. Known shells: {}.", known.join(", "))
        })
    })
}

fn lost_shell(id: &str, e: HostError) -> ToolError {
    ToolError(format!(
        "Shell {id} can no longer be reached on the workspace host ({}).",
        e.message
    ))
}
