//! Bash, BashOutput and KillShell: shell commands run where the workspace is, with the built-in
//! Bash tool's conventions (Claude Code 2.1.330 for Bash; the earlier BashOutput/KillShell pair,
//! which 2.1.330 replaced with TaskStop and Monitor, for background shells).
//!
//! The working directory carries from one call to the next like the built-in's: the command is
//! wrapped so the shell reports `pwd -P` after it on a private file descriptor, behind a marker
//! that is stripped from the output.

mod background;
mod output;
mod shells;
mod tail;

pub use background::{run_bash_output, run_kill_shell, BASH_OUTPUT_SPEC, KILL_SHELL_SPEC};
pub use output::{iso_timestamp, truncate_middle};
pub use shells::{ShellRecord, Shells};

use super::{content_hash, parse_input, Host, ToolError, ToolOutput, ToolResult, ToolSpec, Toolset};
use crate::host::{ExecOutput, ExecRequest, HostError, HostErrorKind};
use crate::json::read_struct;
use crate::paths::{normalize, PathStyle};
use output::{exit_semantics, format_duration, join_lines, no_output_expected, trim_stdout};
use serde_json::{json, Value};

/// The built-in's limits (2.1.330: `BASH_DEFAULT_TIMEOUT_MS`, `BASH_MAX_TIMEOUT_MS`, the background
/// lifetime defaults, and `BASH_MAX_OUTPUT_LENGTH`).
pub const DEFAULT_TIMEOUT_MS: u64 = 120_000;
pub const MAX_TIMEOUT_MS: u64 = 600_000;
pub const DEFAULT_BACKGROUND_LIFETIME_MS: u64 = 1_800_000;
pub const MAX_BACKGROUND_LIFETIME_MS: u64 = 7_200_000;
pub const MAX_OUTPUT_CHARS: usize = 30_000;

/// Bytes of each stream the host keeps for one foreground command. The model sees at most
/// `MAX_OUTPUT_CHARS` of it (head and tail); the rest only bounds memory and transfer.
const CAPTURE_BYTES: usize = 2 * 1024 * 1024;
/// Unread bytes of each stream the host keeps for a background command between two BashOutput
/// calls; older output is dropped first.
const BACKGROUND_UNREAD_BYTES: usize = 4 * 1024 * 1024;

/// What the built-in reports for a command killed at its timeout (SIGTERM's 128 + 15).
const TIMEOUT_EXIT_CODE: i32 = 143;

/// Set for every command: what the CLI sets for its own Bash (`CLAUDECODE`, `GIT_EDITOR=true`),
/// plus pagers and prompts turned off, since commands run without a terminal and any wait for
/// input would last until the timeout. The session's configured environment comes after and wins.
const COMMAND_ENV: [(&str, &str); 5] = [
    ("CLAUDECODE", "1"),
    ("GIT_EDITOR", "true"),
    ("PAGER", "cat"),
    ("GIT_PAGER", "cat"),
    ("GIT_TERMINAL_PROMPT", "0"),
];

const BASH_DESCRIPTION: &str = r#"Executes a given bash command and returns its output.

The working directory persists between commands: a `cd` carries to the next call if the command succeeds and ends inside the workspace. Outside it the shell returns to the workspace root; otherwise it stays where it was. Shell state (environment variables, functions, aliases) does not persist between calls.

IMPORTANT: Avoid using this tool to run `find`, `grep`, `cat`, `head`, `tail`, `sed`, `awk`, or `echo` commands, unless explicitly instructed or after you have verified that a dedicated tool cannot accomplish your task. Instead, use the appropriate dedicated tool as this will provide a much better experience for the user:

 - File search: Use Glob (NOT find or ls)
 - Content search: Use Grep (NOT grep or rg)
 - Read files: Use Read (NOT cat/head/tail)
 - Edit files: Use Edit (NOT sed/awk)
 - Write files: Use Write (NOT echo >/cat <<EOF)
 - Communication: Output text directly (NOT echo/printf)
While the Bash tool can do similar things, it’s better to use the built-in tools as they provide a better user experience and make it easier to review tool calls and give permission.

# Instructions
 - If your command will create new directories or files, first use this tool to run `ls` to verify the parent directory exists and is the correct location.
 - Always quote file paths that contain spaces with double quotes in your command (e.g., cd "path with spaces/file.txt")
 - Try to maintain your current working directory throughout the session by using absolute paths and avoiding usage of `cd`. You may use `cd` if the User explicitly requests it.
 - You may specify an optional timeout in milliseconds (up to 600000ms / 10 minutes for a foreground command). By default, your command will timeout after 120000ms (2 minutes).
 - Commands run without a terminal and with standard input closed. Anything that waits for input (editors, pagers, password prompts, interactive installers) fails or hangs until the timeout: use non-interactive flags such as `-y`/`--yes`, and never use interactive flags like `git rebase -i` or `git add -i`.
 - You can use the `run_in_background` parameter to run the command in the background. Only use this if you don't need the result immediately. You can check its output with the BashOutput tool as it becomes available and stop it with the KillShell tool. With it, `timeout` is how long the command may run in the background (default 1800000 ms, max 7200000 ms); at that limit it is stopped. You do not need to use '&' at the end of the command when using this parameter.
 - If the output exceeds 30000 characters, output will be truncated before being returned to you: send long output to a file and read the part you need.
 - For git commands:
   - Prefer to create a new commit rather than amending an existing commit.
   - Before running destructive operations (e.g., git reset --hard, git push --force, git checkout --), consider whether there is a safer alternative that achieves the same goal. Only use destructive operations when they are truly the best approach.
   - Never skip hooks (--no-verify) or bypass signing (--no-gpg-sign, -c commit.gpgsign=false) unless the user has explicitly asked for it. If a hook fails, investigate and fix the underlying issue.
 - Avoid unnecessary `sleep` commands:
   - Do not sleep between commands that can run immediately — just run them.
   - Do not retry failing commands in a sleep loop — diagnose the root cause.
   - If you must poll an external process, use a check command (e.g. `gh run view`) rather than sleeping first.
   - If you must sleep, keep the duration short to avoid blocking the user.

# Committing changes with git

Only create commits when requested by the user. If unclear, ask first.

Git Safety Protocol:
- NEVER update the git config
- NEVER run destructive git commands (push --force, reset --hard, checkout ., restore ., clean -f, branch -D) unless the user explicitly requests these actions. Taking unauthorized destructive actions is unhelpful and can result in lost work, so it's best to ONLY run these commands when given direct instructions
- NEVER skip hooks (--no-verify, --no-gpg-sign, etc) unless the user explicitly requests it
- NEVER run force push to main/master, warn the user if they request it
- CRITICAL: Always create NEW commits rather than amending, unless the user explicitly requests a git amend. When a pre-commit hook fails, the commit did NOT happen — so --amend would modify the PREVIOUS commit, which may result in destroying work or losing previous changes. Instead, after hook failure, fix the issue, re-stage, and create a NEW commit
- When staging files, prefer adding specific files by name rather than using "git add -A" or "git add .", which can accidentally include sensitive files (.env, credentials) or large binaries
- NEVER commit changes unless the user explicitly asks you to. It is VERY IMPORTANT to only commit when explicitly asked, otherwise the user will feel that you are being too proactive
- Do not commit files that likely contain secrets (.env, credentials.json, .claude/settings.local.json, etc). Warn the user if they specifically request to commit those files
- Draft a concise (1-2 sentences) commit message that focuses on the "why" rather than the "what"
- If there are no changes to commit (i.e., no untracked files and no modifications), do not create an empty commit
- DO NOT push to the remote repository unless the user explicitly asks you to do so
- In order to ensure good formatting, ALWAYS pass the commit message via a HEREDOC, a la this example:
<example>
git commit -m "$(cat <<'EOF'
   Commit message here.
   EOF
   )"
</example>

# Creating pull requests
Use the gh command via the Bash tool for ALL GitHub-related tasks including working with issues, pull requests, checks, and releases. If given a Github URL use the gh command to get the information needed. Return the PR URL when you're done, so the user can see it."#;

fn bash_schema() -> Value {
    super::schema(
        r##"{
      "$schema": "https://json-schema.org/draft/2020-12/schema",
      "type": "object",
      "properties": {
        "command": {"type": "string", "description": "The command to execute"},
        "timeout": {"type": "number", "description": "Optional timeout in milliseconds (max 600000 for a foreground command)"},
        "description": {"type": "string", "description": "Clear, concise description of what this command does in active voice. Never use words like \"complex\" or \"risk\" in the description - just describe what it does.\n\nSay what the command does in plain words: do not echo the command's text, its flags, or file paths - the user reads this description, often without seeing the command.\n\nFor simple commands (git, npm, standard CLI tools), keep it brief (5-10 words):\n- ls → \"List files in current directory\"\n- git status → \"Show working tree status\"\n- npm install → \"Install package dependencies\"\n\nFor commands that are harder to parse at a glance (piped commands, obscure flags, etc.), add enough context to clarify what it does:\n- find . -name \"*.tmp\" -exec rm {} \\; → \"Find and delete all .tmp files recursively\"\n- git reset --hard origin/main → \"Discard all local changes and match remote main\"\n- curl -s url | jq '.data[]' → \"Fetch JSON from URL and extract data array elements\""},
        "run_in_background": {"type": "boolean", "description": "Set to true to run this command in the background. With it, `timeout` limits how long the command may run in the background before it is stopped (default 1800000 ms, max 7200000 ms)."}
      },
      "required": ["command"],
      "additionalProperties": false
    }"##,
    )
}

pub static BASH_SPEC: ToolSpec = ToolSpec {
    name: "Bash",
    title: "Bash",
    description: BASH_DESCRIPTION,
    input_schema: bash_schema,
    read_only: false,
    // Not "destructive": the CLI then asks for every call even in auto mode, unlike its own Bash.
    destructive: false,
};

struct BashInput {
    command: String,
    /// A number in the schema; models send integers and occasionally fractions.
    timeout: Option<f64>,
    description: Option<String>,
    run_in_background: Option<bool>,
}

read_struct!(BashInput {
    command: required "command",
    timeout: default "timeout",
    description: default "description",
    run_in_background: default "run_in_background",
});

pub async fn run_bash<H: Host>(ts: &Toolset<H>, args: Value) -> ToolResult<ToolOutput> {
    let input: BashInput = parse_input("Bash", args)?;
    if input.command.trim().is_empty() {
        return Err(ToolError::new("The command is empty. Give the shell command to run."));
    }
    let command = ts.paths.rewrite_command(&input.command);
    if input.run_in_background == Some(true) {
        return start_background(ts, &input, &command).await;
    }
    let (timeout_ms, timeout_note) = clamp_timeout(
        input.timeout,
        DEFAULT_TIMEOUT_MS,
        MAX_TIMEOUT_MS,
        "for a foreground command",
    );
    let marker = format!(
        "__TETHER_CWD_{:016x}__",
        content_hash(format!("{command}\u{0}{}", ts.host.now_ms()).as_bytes())
    );
    let wrapped = wrap_reporting_cwd(&command, &marker);
    let mut notes: Vec<String> = timeout_note.into_iter().collect();
    let request = |cwd: String| ExecRequest {
        command: wrapped.clone(),
        cwd,
        env: command_env(ts),
        timeout_ms,
        max_output_bytes: CAPTURE_BYTES,
    };
    let output = match ts.host.run(&request(ts.cwd())).await {
        Err(e) if e.kind == HostErrorKind::NotFound && ts.cwd() != ts.paths.root() => {
            // The directory a previous `cd` left us in is gone: start over from the root.
            notes.push(reset_cwd(ts));
            ts.host.run(&request(ts.cwd())).await.map_err(|e| exec_error(ts, e))?
        }
        other => other.map_err(|e| exec_error(ts, e))?,
    };
    let (stdout, reported_cwd) = split_cwd_report(&output.stdout, &marker);
    if output.exit_code == Some(0) && !output.timed_out {
        if let Some(cwd) = reported_cwd {
            notes.extend(follow_cwd(ts, &cwd).await);
        }
    }
    Ok(foreground_result(&input.command, &output, &stdout, timeout_ms, &notes))
}

/// The command inside a brace group (so `cd` and variables act on the shell that reports the
/// directory), on a line of its own (so a heredoc or a trailing `# comment` ends before the
/// closing brace). The report goes to fd 9, a copy of stdout taken before the command runs, so a
/// command that redirects its own stdout (`exec > log`) does not swallow it; the command itself
/// runs with fd 9 closed. `:;` keeps a command that is only a comment valid, and everything stays
/// on the first line so the shell's error messages keep the command's line numbers.
fn wrap_reporting_cwd(command: &str, marker: &str) -> String {
    format!(
        "exec 9>&1; {{ :; {command}\n\n}} 9>&-\n__tether_status=$?\nprintf '\\n%s%s\\n' '{marker}' \"$(pwd -P 2>/dev/null)\" >&9\nexit $__tether_status\n"
    )
}

/// Remove the cwd report from stdout. Returns the command's own stdout and the reported
/// directory (empty when `pwd` failed), or None when the report is missing: the command ended
/// the shell itself (`exit`, `exec`) or its output was cut before the report.
fn split_cwd_report(stdout: &str, marker: &str) -> (String, Option<String>) {
    let needle = format!("\n{marker}");
    let Some(start) = stdout.rfind(&needle) else {
        return (stdout.to_string(), None);
    };
    let after = &stdout[start + needle.len()..];
    let (cwd, rest) = match after.find('\n') {
        Some(i) => (&after[..i], &after[i + 1..]),
        None => (after, ""),
    };
    // Output after the report comes from processes the command left running.
    let mut own = stdout[..start].to_string();
    own.push_str(rest);
    (own, Some(cwd.to_string()))
}

/// Adopt the directory the shell ended in, or go back to the root (with the built-in's note)
/// when it is outside the workspace or unknown.
async fn follow_cwd<H: Host>(ts: &Toolset<H>, reported: &str) -> Option<String> {
    let root = ts.paths.root().to_string();
    let inside = match from_shell_path(reported.trim_end_matches('\r'), ts.paths.style()) {
        Some(cwd) if ts.paths.contains(&cwd) => Some(cwd),
        Some(cwd) => {
            // `pwd -P` resolves symlinks: a root reached through a link reports its real path.
            let real_root = ts.real_root().await;
            (real_root != root && ts.paths.is_within(&cwd, &real_root))
                .then(|| ts.paths.join(&root, cwd.get(real_root.len()..).unwrap_or("")))
        }
        None => None,
    };
    match inside {
        Some(cwd) => {
            ts.set_cwd(cwd);
            None
        }
        None => Some(reset_cwd(ts)),
    }
}

/// A directory as the shell printed it, in the workspace's path style; None if it is not an
/// absolute path (Git Bash on Windows prints `/c/Users/...` for `C:\Users\...`).
fn from_shell_path(path: &str, style: PathStyle) -> Option<String> {
    if path.is_empty() {
        return None;
    }
    if style == PathStyle::Windows {
        let b = path.as_bytes();
        if b.len() >= 2 && b[0] == b'/' && b[1].is_ascii_alphabetic() && (b.len() == 2 || b[2] == b'/') {
            let drive = (b[1] as char).to_ascii_uppercase();
            return Some(normalize(&format!("{drive}:\\{}", path.get(2..).unwrap_or("")), style));
        }
    }
    (PathStyle::of_absolute(path) == Some(style)).then(|| normalize(path, style))
}

fn reset_cwd<H: Host>(ts: &Toolset<H>) -> String {
    let root = ts.paths.root().to_string();
    let note = format!("Shell cwd was reset to {root}");
    ts.set_cwd(root);
    note
}

fn command_env<H: Host>(ts: &Toolset<H>) -> Vec<(String, String)> {
    COMMAND_ENV
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .chain(ts.config.env.iter().cloned())
        .collect()
}

fn exec_error<H: Host>(ts: &Toolset<H>, e: HostError) -> ToolError {
    match e.kind {
        HostErrorKind::NotFound | HostErrorKind::NotADirectory => ToolError(format!(
            "Cannot run the command: {}. The workspace folder {} must exist and be reachable.",
            e.message,
            ts.paths.root()
        )),
        _ => ToolError(format!("Cannot run the command: {}", e.message)),
    }
}

/// The timeout to use and, when the requested one was out of range, a note saying so.
fn clamp_timeout(requested: Option<f64>, default: u64, max: u64, what: &str) -> (u64, Option<String>) {
    match requested {
        Some(t) if t.is_finite() && t >= 1.0 => {
            if t > max as f64 {
                (
                    max,
                    Some(format!(
                        "(The timeout of {}ms exceeds the maximum of {max}ms {what}; {max}ms was used.)",
                        crate::json::js_number(t)
                    )),
                )
            } else {
                (t as u64, None)
            }
        }
        _ => (default, None),
    }
}

fn foreground_result(
    command: &str,
    output: &ExecOutput,
    stdout: &str,
    timeout_ms: u64,
    notes: &[String],
) -> ToolOutput {
    let semantics = exit_semantics(command, output.exit_code);
    let is_error = output.timed_out || semantics.is_error;
    let stdout_shown = trim_stdout(stdout);
    let mut stdout_shown = stdout_shown.to_string();
    let mut stderr_shown = output.stderr.trim().to_string();
    if output.truncated {
        // The host kept only the first CAPTURE_BYTES of a stream that went on.
        let note = format!("... [output beyond {CAPTURE_BYTES} bytes was not captured] ...");
        if output.stdout.len() >= CAPTURE_BYTES {
            stdout_shown = join_lines([stdout_shown.as_str(), note.as_str()]);
        }
        if output.stderr.len() >= CAPTURE_BYTES {
            stderr_shown = join_lines([stderr_shown.as_str(), note.as_str()]);
        }
    }
    let body = truncate_middle(
        &join_lines([stdout_shown.as_str(), stderr_shown.as_str()]),
        MAX_OUTPUT_CHARS,
    );
    let mut lines: Vec<String> = Vec::new();
    if output.timed_out {
        lines.push(format!("Exit code {TIMEOUT_EXIT_CODE}"));
        lines.push(format!("Command timed out after {}", format_duration(timeout_ms)));
    } else if is_error {
        lines.push(match output.exit_code {
            Some(code) => format!("Exit code {code}"),
            None => "Command was killed by a signal".to_string(),
        });
    }
    lines.push(body);
    lines.extend(notes.iter().cloned());
    let mut text = join_lines(lines.iter().map(String::as_str));
    if text.is_empty() {
        text = "(Bash completed with no output)".to_string();
    }
    let mut structured = json!({
        "stdout": truncate_middle(&stdout_shown, MAX_OUTPUT_CHARS),
        "stderr": truncate_middle(&stderr_shown, MAX_OUTPUT_CHARS),
        "interrupted": false,
        "isImage": false,
        "noOutputExpected": no_output_expected(command),
        "exitCode": output.exit_code,
        "timedOut": output.timed_out,
    });
    if let Some(message) = semantics.interpretation {
        structured["returnCodeInterpretation"] = json!(message);
    }
    let result = if is_error {
        ToolOutput::error(text)
    } else {
        ToolOutput::text(text)
    };
    result.with_structured(structured)
}

async fn start_background<H: Host>(ts: &Toolset<H>, input: &BashInput, command: &str) -> ToolResult<ToolOutput> {
    let (lifetime_ms, lifetime_note) = clamp_timeout(
        input.timeout,
        DEFAULT_BACKGROUND_LIFETIME_MS,
        MAX_BACKGROUND_LIFETIME_MS,
        "for a background command",
    );
    let request = |cwd: String| ExecRequest {
        command: command.to_string(),
        cwd,
        env: command_env(ts),
        timeout_ms: lifetime_ms,
        max_output_bytes: BACKGROUND_UNREAD_BYTES,
    };
    let mut notes: Vec<String> = lifetime_note.into_iter().collect();
    let host_id = match ts.host.spawn_background(&request(ts.cwd())).await {
        Err(e) if e.kind == HostErrorKind::NotFound && ts.cwd() != ts.paths.root() => {
            notes.push(reset_cwd(ts));
            ts.host
                .spawn_background(&request(ts.cwd()))
                .await
                .map_err(|e| exec_error(ts, e))?
        }
        other => other.map_err(|e| exec_error(ts, e))?,
    };
    let title = input
        .description
        .as_deref()
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .unwrap_or(&input.command);
    let id = ts.shells.add(ShellRecord {
        host_id,
        command: input.command.clone(),
        title: title.to_string(),
        started_ms: ts.host.now_ms(),
        lifetime_ms,
    });
    let mut lines = vec![format!(
        "Command running in background with ID: {id}. Check its output with BashOutput and stop it with KillShell."
    )];
    lines.extend(notes);
    Ok(ToolOutput::text(lines.join("\n")).with_structured(json!({
        "stdout": "",
        "stderr": "",
        "interrupted": false,
        "isImage": false,
        "backgroundTaskId": id,
    })))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cwd_report_is_stripped_even_with_later_output() {
        let (own, cwd) = split_cwd_report("hello\n\nMARK/w/sub\nlate\n", "MARK");
        assert_eq!(own, "hello\nlate\n");
        assert_eq!(cwd.as_deref(), Some("/w/sub"));
        let (own, cwd) = split_cwd_report("no report", "MARK");
        assert_eq!((own.as_str(), cwd), ("no report", None));
    }

    #[test]
    fn git_bash_paths_map_to_windows_paths() {
        assert_eq!(
            from_shell_path("/c/Users/me", PathStyle::Windows).as_deref(),
            Some("C:\\Users\\me")
        );
        assert_eq!(from_shell_path("relative", PathStyle::Posix), None);
        assert_eq!(
            from_shell_path("/home/me/", PathStyle::Posix).as_deref(),
            Some("/home/me")
        );
    }
}
