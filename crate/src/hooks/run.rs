//! Running an event's hooks on the workspace: each matching command through the host's
//! [`Exec`] (where Tether's Bash runs), all at once as Claude Code runs them, with the event's
//! JSON on stdin, `CLAUDE_PROJECT_DIR` set and the workspace root as the working directory.

use super::outcome::{HookOutcome, HookRun};
use super::{HookEvent, HookSet};
use crate::host::{Clock, Exec, ExecRequest, FileSystem};
use serde_json::{Map, Value};

/// Claude Code's default timeout for a command hook, in seconds.
pub const DEFAULT_TIMEOUT_SECS: f64 = 60.0;
/// The most output kept of each stream of a hook.
const MAX_OUTPUT_BYTES: usize = 1024 * 1024;
/// Inputs up to this size travel inside the command line (a here-document); larger ones in a
/// file on the workspace, since one argument of a command line is limited (128 KiB on Linux).
const INLINE_INPUT_BYTES: usize = 96 * 1024;
const HEREDOC_END: &str = "TETHER_HOOK_INPUT";

/// What every hook input carries besides the event's own fields.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HookContext {
    /// The workspace root: `cwd` of the input, `CLAUDE_PROJECT_DIR`, the working directory.
    pub root: String,
    pub session_id: String,
    /// The agent's transcript, when it keeps one where Claude Code does (a laptop path).
    pub transcript_path: String,
    pub permission_mode: String,
}

impl HookContext {
    /// `fields` completed with the common ones Claude Code sends (`session_id`,
    /// `transcript_path`, `cwd`, `permission_mode`, `hook_event_name`); `cwd` is always the
    /// workspace root.
    pub fn input(&self, event: HookEvent, fields: Map<String, Value>) -> Value {
        let mut input = Map::new();
        input.insert("session_id".into(), Value::String(self.session_id.clone()));
        input.insert("transcript_path".into(), Value::String(self.transcript_path.clone()));
        input.insert("permission_mode".into(), Value::String(self.permission_mode.clone()));
        for (key, value) in fields {
            input.insert(key, value);
        }
        input.insert("cwd".into(), Value::String(self.root.clone()));
        input.insert("hook_event_name".into(), Value::String(event.as_str().into()));
        Value::Object(input)
    }
}

/// Run the hooks `input` selects for `event` and fold what they said. No hook: an empty outcome
/// (`ran` 0), and nothing runs.
pub async fn run_hooks<H: Exec + FileSystem + Clock>(
    host: &H,
    hooks: &HookSet,
    event: HookEvent,
    input: &Value,
    root: &str,
) -> HookOutcome {
    let selected = hooks.matching(event, input);
    let subject = event.subject(input);
    if selected.is_empty() {
        return HookOutcome::default();
    }
    let text = input.to_string();
    let stdin = match Stdin::prepare(host, root, &text).await {
        Ok(stdin) => stdin,
        Err(message) => {
            let runs = selected
                .iter()
                .map(|hook| HookRun {
                    command: &hook.command,
                    timeout_secs: hook.timeout_secs.unwrap_or(DEFAULT_TIMEOUT_SECS),
                    result: Err(message.clone()),
                })
                .collect();
            return HookOutcome::fold(event, subject, runs);
        }
    };
    let runs = futures::future::join_all(selected.iter().map(|hook| {
        let timeout_secs = hook.timeout_secs.unwrap_or(DEFAULT_TIMEOUT_SECS);
        let request = ExecRequest {
            command: stdin.wrap(&hook.command),
            cwd: root.to_string(),
            env: vec![("CLAUDE_PROJECT_DIR".into(), root.to_string())],
            timeout_ms: (timeout_secs * 1000.0) as u64,
            max_output_bytes: MAX_OUTPUT_BYTES,
        };
        async move {
            HookRun {
                command: &hook.command,
                timeout_secs,
                result: host.run(&request).await.map_err(|e| e.message),
            }
        }
    }))
    .await;
    stdin.clean_up(host).await;
    HookOutcome::fold(event, subject, runs)
}

/// How the input reaches the hooks' stdin.
enum Stdin {
    /// A here-document in the command line (the input is one JSON line).
    Inline(String),
    /// A file on the workspace (under `.tether/`, which Tether keeps out of git).
    File(String),
}

impl Stdin {
    async fn prepare<H: FileSystem + Clock>(host: &H, root: &str, text: &str) -> Result<Stdin, String> {
        if text.len() <= INLINE_INPUT_BYTES {
            return Ok(Stdin::Inline(text.to_string()));
        }
        let dir = format!("{}/.tether/hooks", root.trim_end_matches('/'));
        let path = format!("{dir}/input-{}.json", host.now_ms() as u64);
        let write = async {
            host.create_dir_all(&dir).await?;
            host.write_file(&format!("{}/.tether/.gitignore", root.trim_end_matches('/')), b"*\n")
                .await?;
            host.write_file(&path, text.as_bytes()).await
        };
        write
            .await
            .map(|()| Stdin::File(path))
            .map_err(|e| format!("the hook input could not be written to the workspace: {}", e.message))
    }

    fn wrap(&self, command: &str) -> String {
        match self {
            Stdin::Inline(text) => format!("{{ {command}\n}} <<'{HEREDOC_END}'\n{text}\n{HEREDOC_END}"),
            Stdin::File(path) => format!("{{ {command}\n}} < '{}'", path.replace('\'', r"'\''")),
        }
    }

    async fn clean_up<H: FileSystem>(&self, host: &H) {
        if let Stdin::File(path) = self {
            // A leftover input file is harmless (ignored by git) and goes with the next one.
            let _ = host.remove(path, false).await;
        }
    }
}
