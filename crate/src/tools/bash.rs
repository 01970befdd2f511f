//! Bash, BashOutput and KillShell: shell commands where the workspace is.
//!
//! Like the built-in, the working directory persists between calls: each command runs inside a
//! wrapper that prints a marker and `pwd` after it, the trailer is stripped, and the next command
//! starts there. A directory outside the workspace is not kept ("Shell cwd was reset to …").

use super::{parse_input, Host, ShellRecord, ToolError, ToolOutput, ToolResult, ToolSpec, Toolset};
use crate::host::{ExecRequest, HostErrorKind};
use regex::Regex;
use serde::Deserialize;
use serde_json::{json, Value};

/// What the model sees of each stream at most, as the built-in (`BASH_MAX_OUTPUT_LENGTH` default).
pub const MAX_OUTPUT_CHARS: usize = 30_000;
pub const DEFAULT_TIMEOUT_MS: u64 = 120_000;
pub const MAX_TIMEOUT_MS: u64 = 600_000;
pub const DEFAULT_BACKGROUND_TIMEOUT_MS: u64 = 1_800_000;
pub const MAX_BACKGROUND_TIMEOUT_MS: u64 = 7_200_000;
/// Bytes the host keeps per stream; the model sees at most [`MAX_OUTPUT_CHARS`] of them.
const HOST_OUTPUT_CAP: usize = 4 * 1024 * 1024;
const CWD_MARKER: &str = "__TETHER_CWD_7f3a9c__";

/// Variables that keep commands from waiting for a person who is not there.
const NON_INTERACTIVE_ENV: [(&str, &str); 5] = [
    ("GIT_EDITOR", "true"),
    ("GIT_TERMINAL_PROMPT", "0"),
    ("PAGER", "cat"),
    ("GIT_PAGER", "cat"),
    ("DEBIAN_FRONTEND", "noninteractive"),
];

const BASH_DESCRIPTION: &str = r#"Executes a given bash command and returns its output.

The working directory persists between commands, but shell state (variables, functions, aliases) does not. The shell starts in the workspace root; a cd to a directory outside the workspace is reset.

IMPORTANT: Avoid using this tool to run `find`, `grep`, `cat`, `head`, `tail`, `sed`, `awk`, or `echo` commands, unless explicitly instructed or after you have verified that a dedicated tool cannot accomplish your task. Instead, use the appropriate dedicated tool as this will provide a much better experience for the user:
 - File search: Use Glob (NOT find or ls)
 - Content search: Use Grep (NOT grep or rg)
 - Read files: Use Read (NOT cat/head/tail)
 - Edit files: Use Edit (NOT sed/awk)
 - Write files: Use Write (NOT echo >/cat <<EOF)

# Instructions
 - If your command will create new directories or files, first use this tool to run `ls` to verify the parent directory exists and is the correct location.
 - Always quote file paths that contain spaces with double quotes (e.g., cd "path with spaces/file.txt").
 - Try to maintain your current working directory throughout the session by using absolute paths and avoiding usage of `cd`.
 - You may specify an optional timeout in milliseconds (up to 600000ms / 10 minutes). By default, your command will timeout after 120000ms (2 minutes).
 - You can use the `run_in_background` parameter to run the command in the background. Only use this if you don't need the result immediately and are OK being notified when the command completes later. Read its output with BashOutput and stop it with KillShell. You do not need to use '&' at the end of the command when using this parameter.
 - Write a clear, concise description of what your command does.
 - If the output exceeds 30000 characters, output will be truncated before being returned to you.
 - When issuing multiple commands: if the commands are independent and can run in parallel, make multiple Bash tool calls in a single message. If the commands depend on each other and must run sequentially, use a single Bash call with '&&' to chain them together. Use ';' only when you need to run commands sequentially but don't care if earlier commands fail.
 - Avoid interactive commands (editors, pagers, prompts): there is no terminal to answer them. Use non-interactive flags (e.g. `git --no-pager`, `-y`).
 - The command runs on the machine where the workspace is, which may be a remote server without internet access."#;

pub static BASH_SPEC: ToolSpec = ToolSpec {
    name: "Bash",
    title: "Bash",
    description: BASH_DESCRIPTION,
    input_schema: bash_schema,
    read_only: false,
    destructive: true,
};

pub static BASH_OUTPUT_SPEC: ToolSpec = ToolSpec {
    name: "BashOutput",
    title: "BashOutput",
    description: "- Retrieves output from a running or completed background bash shell\n- Takes a bash_id parameter identifying the shell\n- Always returns only new output since the last check\n- Returns stdout and stderr output along with shell status\n- Supports optional regex filtering to show only lines matching a pattern\n- Use this tool when you need to monitor or check the output of a long-running shell\n- Shell IDs are returned by Bash when run_in_background is true",
    input_schema: bash_output_schema,
    read_only: true,
    destructive: false,
};

pub static KILL_SHELL_SPEC: ToolSpec = ToolSpec {
    name: "KillShell",
    title: "KillShell",
    description: "- Kills a running background bash shell by its ID\n- Takes a shell_id parameter identifying the shell to kill\n- Returns a success or failure status\n- Use this tool when you need to terminate a long-running shell\n- Shell IDs are returned by Bash when run_in_background is true",
    input_schema: kill_shell_schema,
    read_only: false,
    destructive: false,
};

fn bash_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "command": {"type": "string", "description": "The command to execute"},
            "timeout": {"type": "number", "description": "Optional timeout in milliseconds (max 600000 for a foreground command)"},
            "description": {"type": "string", "description": "Clear, concise description of what this command does in active voice, in 5-10 words (e.g. \"List files in current directory\", \"Install package dependencies\")."},
            "run_in_background": {"type": "boolean", "description": "Set to true to run this command in the background. Use BashOutput to read its output and KillShell to stop it. With it, `timeout` limits how long the command may run in the background before it is stopped (default 1800000 ms, max 7200000 ms)."}
        },
        "required": ["command"],
        "additionalProperties": false,
        "$schema": "http://json-schema.org/draft-07/schema#"
    })
}

fn bash_output_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "bash_id": {"type": "string", "description": "The ID of the background shell to retrieve output from"},
            "filter": {"type": "string", "description": "Optional regular expression to filter the output lines. Only lines matching this regex will be included in the result. Any lines that do not match will no longer be available to read."}
        },
        "required": ["bash_id"],
        "additionalProperties": false,
        "$schema": "http://json-schema.org/draft-07/schema#"
    })
}

fn kill_shell_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "shell_id": {"type": "string", "description": "The ID of the background shell to kill"}
        },
        "required": ["shell_id"],
        "additionalProperties": false,
        "$schema": "http://json-schema.org/draft-07/schema#"
    })
}

#[derive(Deserialize)]
struct BashInput {
    command: String,
    timeout: Option<f64>,
    #[serde(default)]
    #[allow(dead_code)] // shown by the UI from the raw input; accepted here so validation passes
    description: Option<String>,
    #[serde(default)]
    run_in_background: bool,
}

#[derive(Deserialize)]
struct BashOutputInput {
    bash_id: String,
    filter: Option<String>,
}

#[derive(Deserialize)]
struct KillShellInput {
    shell_id: String,
}

/// The command wrapped so that the shell reports its final directory after it, keeping the
/// command's exit status. `{ …\n}` keeps heredocs and a trailing `# comment` intact.
fn wrap(command: &str) -> String {
    format!("{{ {command}\n}}\n__tether_status=$?\nprintf '\\n{CWD_MARKER}%s\\n' \"$(pwd)\"\nexit $__tether_status")
}

/// Split the cwd trailer off stdout: (stdout without it, the reported directory).
fn strip_cwd_trailer(stdout: &str) -> (String, Option<String>) {
    let marker = format!("\n{CWD_MARKER}");
    match stdout.rfind(&marker) {
        Some(i) => {
            let dir = stdout[i + marker.len()..].trim_end_matches(['\n', '\r']).to_string();
            (stdout[..i].to_string(), Some(dir))
        }
        None => (stdout.to_string(), None),
    }
}

/// The built-in's cap: the first [`MAX_OUTPUT_CHARS`] characters, then how many lines were cut.
pub fn truncate_output(text: &str) -> String {
    if text.chars().count() <= MAX_OUTPUT_CHARS {
        return text.to_string();
    }
    let cut = text
        .char_indices()
        .nth(MAX_OUTPUT_CHARS)
        .map(|(i, _)| i)
        .unwrap_or(text.len());
    let (head, rest) = text.split_at(cut);
    let lines = rest.lines().count();
    format!("{head}\n\n... [{lines} lines truncated] ...")
}

fn env_for<H: Host>(ts: &Toolset<H>) -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> = NON_INTERACTIVE_ENV
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    env.extend(ts.config.env.iter().cloned());
    env
}

fn describe_ms(ms: u64) -> String {
    let secs = ms as f64 / 1000.0;
    if secs >= 60.0 {
        format!("{}m {}s", (secs / 60.0).floor(), (secs % 60.0).round())
    } else {
        format!("{secs}s")
    }
}

pub async fn run_bash<H: Host>(ts: &Toolset<H>, args: Value) -> ToolResult<ToolOutput> {
    let input: BashInput = parse_input("Bash", args)?;
    if input.command.trim().is_empty() {
        return Err(ToolError::new("The command is empty. Give a shell command to run."));
    }
    let command = ts.paths.rewrite_command(&input.command);
    let requested = input.timeout.filter(|t| t.is_finite() && *t > 0.0).map(|t| t as u64);
    if input.run_in_background {
        return run_in_background(ts, &command, requested).await;
    }
    let mut notes = Vec::new();
    let timeout_ms = match requested {
        Some(t) if t > MAX_TIMEOUT_MS => {
            notes.push(format!(
                "(The timeout of {t} ms is above the maximum; {MAX_TIMEOUT_MS} ms was used.)"
            ));
            MAX_TIMEOUT_MS
        }
        Some(t) => t,
        None => DEFAULT_TIMEOUT_MS,
    };
    let mut cwd = ts.shell_cwd();
    let mut request = ExecRequest {
        command: wrap(&command),
        cwd: cwd.clone(),
        env: env_for(ts),
        timeout_ms,
        max_output_bytes: HOST_OUTPUT_CAP,
    };
    let output = match ts.host.run(&request).await {
        Err(e) if e.kind == HostErrorKind::NotFound && cwd != ts.paths.root() => {
            // The directory the shell was in is gone: start over at the root.
            cwd = ts.paths.root().to_string();
            ts.set_shell_cwd(&cwd);
            notes.push(format!("Shell cwd was reset to {cwd}"));
            request.cwd = cwd.clone();
            ts.host.run(&request).await
        }
        other => other,
    }
    .map_err(|e| ToolError::new(format!("Could not run the command: {}", e.message)))?;

    let (stdout, reported_cwd) = strip_cwd_trailer(&output.stdout);
    if let Some(dir) = reported_cwd.filter(|d| !d.is_empty()) {
        match ts.paths.resolve(&dir) {
            Ok(dir) if ts.paths.contains(&dir) => ts.set_shell_cwd(&dir),
            _ => {
                let root = ts.paths.root().to_string();
                ts.set_shell_cwd(&root);
                notes.push(format!("Shell cwd was reset to {root}"));
            }
        }
    }
    let stdout = truncate_output(stdout.trim_start_matches(['\n', '\r']).trim_end());
    let mut stderr = truncate_output(output.stderr.trim());
    if output.timed_out {
        if !stderr.is_empty() {
            stderr.push('\n');
        }
        stderr.push_str(&format!(
            "Command timed out after {} and was stopped.",
            describe_ms(timeout_ms)
        ));
    } else if let Some(code) = output.exit_code.filter(|c| *c != 0) {
        if !stderr.is_empty() {
            stderr.push('\n');
        }
        stderr.push_str(&format!("Exit code {code}"));
    } else if output.exit_code.is_none() {
        if !stderr.is_empty() {
            stderr.push('\n');
        }
        stderr.push_str("The command was killed by a signal.");
    }
    let mut parts: Vec<String> = [stdout.clone(), stderr.clone()]
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect();
    parts.extend(notes);
    if output.truncated {
        parts.push(format!(
            "(Output beyond {} MB per stream was not kept.)",
            HOST_OUTPUT_CAP / (1024 * 1024)
        ));
    }
    let text = if parts.is_empty() {
        "(no output)".to_string()
    } else {
        parts.join("\n")
    };
    let failed = output.timed_out || output.exit_code != Some(0);
    let structured = json!({
        "stdout": stdout,
        "stderr": stderr,
        "interrupted": output.timed_out,
        "isImage": false,
        "exitCode": output.exit_code,
        "timedOut": output.timed_out,
        "cwd": ts.shell_cwd(),
    });
    let result = if failed {
        ToolOutput::error(text)
    } else {
        ToolOutput::text(text)
    };
    Ok(result.with_structured(structured))
}

async fn run_in_background<H: Host>(ts: &Toolset<H>, command: &str, requested: Option<u64>) -> ToolResult<ToolOutput> {
    let timeout_ms = requested
        .unwrap_or(DEFAULT_BACKGROUND_TIMEOUT_MS)
        .min(MAX_BACKGROUND_TIMEOUT_MS);
    let request = ExecRequest {
        command: command.to_string(),
        cwd: ts.shell_cwd(),
        env: env_for(ts),
        timeout_ms,
        max_output_bytes: HOST_OUTPUT_CAP,
    };
    let host_id = ts
        .host
        .spawn_background(&request)
        .await
        .map_err(|e| ToolError::new(format!("Could not start the command in the background: {}", e.message)))?;
    let id = ts.add_shell(ShellRecord {
        host_id,
        command: command.to_string(),
        started_ms: ts.host.now_ms(),
    });
    Ok(ToolOutput::text(format!(
        "Command running in background with ID: {id}. Use BashOutput with bash_id \"{id}\" to read its output and KillShell to stop it."
    ))
    .with_structured(json!({
        "stdout": "",
        "stderr": "",
        "interrupted": false,
        "isImage": false,
        "backgroundTaskId": id,
    })))
}

fn unknown_shell<H: Host>(ts: &Toolset<H>, id: &str) -> ToolError {
    let known = ts.shell_ids();
    if known.is_empty() {
        ToolError::new(format!(
            "No shell found with ID: {id}. No background shells have been started."
        ))
    } else {
        ToolError::new(format!(
            "No shell found with ID: {id}. Known shells: {}",
            known.join(", ")
        ))
    }
}

fn filter_lines(text: &str, filter: Option<&Regex>) -> String {
    match filter {
        None => text.to_string(),
        Some(re) => text.lines().filter(|l| re.is_match(l)).collect::<Vec<_>>().join("\n"),
    }
}

pub async fn run_bash_output<H: Host>(ts: &Toolset<H>, args: Value) -> ToolResult<ToolOutput> {
    let input: BashOutputInput = parse_input("BashOutput", args)?;
    let filter = match input.filter.as_deref().filter(|f| !f.is_empty()) {
        Some(f) => Some(Regex::new(f).map_err(|e| ToolError::new(format!("Invalid filter regex: {e}")))?),
        None => None,
    };
    let shell = ts
        .shell(&input.bash_id)
        .ok_or_else(|| unknown_shell(ts, &input.bash_id))?;
    let status = ts
        .host
        .read_background(&shell.host_id)
        .await
        .map_err(|e| ToolError::new(format!("Could not read shell {}: {}", input.bash_id, e.message)))?;
    let stdout = truncate_output(filter_lines(&status.stdout, filter.as_ref()).trim_end());
    let stderr = truncate_output(filter_lines(&status.stderr, filter.as_ref()).trim_end());
    let state = if status.running {
        "running"
    } else if status.exit_code.is_some() {
        "completed"
    } else {
        "killed"
    };
    let mut text = format!("<status>{state}</status>");
    if let Some(code) = status.exit_code {
        text.push_str(&format!("\n\n<exit_code>{code}</exit_code>"));
    }
    if !stdout.is_empty() {
        text.push_str(&format!("\n\n<stdout>\n{stdout}\n</stdout>"));
    }
    if !stderr.is_empty() {
        text.push_str(&format!("\n\n<stderr>\n{stderr}\n</stderr>"));
    }
    text.push_str(&format!(
        "\n\n<timestamp>{}</timestamp>",
        iso_timestamp(ts.host.now_ms())
    ));
    Ok(ToolOutput::text(text).with_structured(json!({
        "shellId": input.bash_id,
        "command": shell.command,
        "status": state,
        "exitCode": status.exit_code,
        "stdout": stdout,
        "stderr": stderr,
    })))
}

pub async fn run_kill_shell<H: Host>(ts: &Toolset<H>, args: Value) -> ToolResult<ToolOutput> {
    let input: KillShellInput = parse_input("KillShell", args)?;
    let shell = ts
        .shell(&input.shell_id)
        .ok_or_else(|| unknown_shell(ts, &input.shell_id))?;
    let killed = ts
        .host
        .kill_background(&shell.host_id)
        .await
        .map_err(|e| ToolError::new(format!("Could not kill shell {}: {}", input.shell_id, e.message)))?;
    if killed {
        Ok(ToolOutput::text(format!(
            "Successfully killed shell: {} ({})",
            input.shell_id, shell.command
        ))
        .with_structured(json!({"shellId": input.shell_id, "killed": true})))
    } else {
        Err(ToolError::new(format!(
            "Shell {} is not running (it has already exited); there is nothing to kill. Use BashOutput to read its final output.",
            input.shell_id
        )))
    }
}

/// `YYYY-MM-DDTHH:MM:SS.mmmZ` from Unix milliseconds (no time crate: the clock comes from the host).
fn iso_timestamp(ms: f64) -> String {
    let total_ms = if ms.is_finite() && ms > 0.0 { ms as i64 } else { 0 };
    let (days, ms_of_day) = (total_ms.div_euclid(86_400_000), total_ms.rem_euclid(86_400_000));
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let (h, m, s, milli) = (
        ms_of_day / 3_600_000,
        ms_of_day / 60_000 % 60,
        ms_of_day / 1000 % 60,
        ms_of_day % 1000,
    );
    format!("{year:04}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}.{milli:03}Z")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_timestamp_formats_unix_milliseconds() {
        assert_eq!(iso_timestamp(0.0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso_timestamp(1_795_000_000_123.0), "2026-11-18T11:06:40.123Z");
    }

    #[test]
    fn truncation_keeps_the_head_and_counts_the_cut_lines() {
        let text = "x\n".repeat(MAX_OUTPUT_CHARS);
        let out = truncate_output(&text);
        assert!(out.ends_with(&format!("... [{} lines truncated] ...", MAX_OUTPUT_CHARS / 2)));
        assert!(out.starts_with("x\nx\n"));
    }

    #[test]
    fn the_cwd_trailer_is_split_off() {
        let (out, dir) = strip_cwd_trailer(&format!("hello\n\n{CWD_MARKER}/srv/proj/sub\n"));
        assert_eq!(out, "hello\n");
        assert_eq!(dir.as_deref(), Some("/srv/proj/sub"));
        assert_eq!(strip_cwd_trailer("no marker").1, None);
    }
}
