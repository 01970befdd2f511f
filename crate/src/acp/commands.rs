//! The agent's `terminal/*` requests: commands Tether runs for it in the workspace's shell, behind
//! the gate, their output pumped into the tool card and kept for the agent ([`super::terminals`]).

use super::protocol::terminal::CreateTerminalRequest;
use super::state::{AcpBackend, PendingOp, Work};
use crate::backend::{Action, Output, WorkspaceOp, WorkspaceRequest};
use crate::events::UiEvent;
use crate::rpc::{Id, RpcError, REQUEST_CANCELLED};
use serde_json::{json, Value};

/// How long one read of a running terminal's output waits for more.
const TERMINAL_POLL_MS: u64 = 1000;

impl AcpBackend {
    pub(super) fn on_create_terminal(&mut self, id: Id, r: CreateTerminalRequest) -> Vec<Action> {
        let cwd = match r.cwd.as_deref().map(|c| self.workspace_path(c)).transpose() {
            Ok(cwd) => cwd.unwrap_or_else(|| self.paths.root().to_string()),
            Err(why) => return self.refuse_path(&id, why).into_iter().map(Action::Output).collect(),
        };
        let command = std::iter::once(r.command.as_str())
            .chain(r.args.iter().map(String::as_str))
            .map(shell_word)
            .collect::<Vec<_>>()
            .join(" ");
        let command = self.paths.rewrite_command(&command);
        let env = r.env.into_iter().map(|v| (v.name, v.value)).collect();
        let work = Work::Spawn {
            command: command.clone(),
            cwd,
            env,
            limit: r.output_byte_limit,
        };
        vec![self.ask_for_work(id, "Bash", json!({"command": command}), work)]
    }

    pub(super) fn kill_terminal(&mut self, id: Id, terminal_id: &str, release: bool) -> Vec<Output> {
        let Some(terminal) = self.terminals.get(terminal_id) else {
            return vec![self.unknown_terminal(&id, terminal_id)];
        };
        let running = terminal.exit.is_none();
        terminal.killed = true;
        let host_id = terminal.host_id.clone();
        if release {
            // The tool card keeps its output; the agent forgets it.
            if let Some(released) = self.terminals.remove(terminal_id) {
                for waiter in released.waiters {
                    self.follow.push(Action::Output(
                        self.respond(&waiter, Err(RpcError::new(REQUEST_CANCELLED, "released"))),
                    ));
                }
            }
        }
        match (running, host_id) {
            (true, Some(host_id)) => {
                let call = self.add_op(PendingOp::Kill { id });
                self.follow.push(Action::Workspace(WorkspaceRequest {
                    call,
                    op: WorkspaceOp::Kill { id: host_id },
                }));
                Vec::new()
            }
            _ => vec![self.respond(&id, Ok(json!({})))],
        }
    }

    pub(super) fn poll_terminal(&mut self, terminal: &str, host_id: String) {
        let call = self.add_op(PendingOp::Poll {
            terminal: terminal.to_string(),
        });
        self.follow.push(Action::Workspace(WorkspaceRequest {
            call,
            op: WorkspaceOp::ReadOutput {
                id: host_id,
                wait_ms: TERMINAL_POLL_MS,
            },
        }));
    }

    pub(super) fn terminal_output(&mut self, terminal_id: &str, status: crate::host::BackgroundStatus) -> Vec<Output> {
        let data = format!("{}{}", status.stdout, status.stderr);
        let mut out = Vec::new();
        let Some(terminal) = self.terminals.get(terminal_id) else {
            // Released: its output still shows; the agent hears nothing more.
            if !data.is_empty() {
                out.push(terminal_event(terminal_id, data, None));
            }
            return out;
        };
        terminal.append(&data);
        if status.running {
            if !data.is_empty() {
                out.push(terminal_event(terminal_id, data, None));
            }
            if let Some(host_id) = terminal.host_id.clone() {
                self.poll_terminal(terminal_id, host_id);
            }
            return out;
        }
        if !data.is_empty() {
            out.push(terminal_event(terminal_id, data, None));
        }
        out.extend(self.terminal_ended(terminal_id, status.exit_code, None));
        out
    }

    pub(super) fn terminal_ended(
        &mut self,
        terminal_id: &str,
        code: Option<i32>,
        problem: Option<String>,
    ) -> Vec<Output> {
        let mut out = Vec::new();
        let Some(terminal) = self.terminals.get(terminal_id) else {
            return out;
        };
        let signal = (code.is_none() && terminal.killed).then(|| "SIGKILL".to_string());
        if let Some(problem) = &problem {
            terminal.append(&format!("\n{problem}\n"));
        }
        terminal.exit = Some((code, signal.clone()));
        let status = terminal.exit_status().unwrap_or(Value::Null);
        let waiters = std::mem::take(&mut terminal.waiters);
        out.push(Output::Event(UiEvent::TerminalOutput {
            terminal_id: terminal_id.to_string(),
            output: problem.unwrap_or_default(),
            append: true,
            exited: true,
            exit_code: code,
            signal,
        }));
        for waiter in waiters {
            out.push(self.respond(&waiter, Ok(status.clone())));
        }
        out
    }
}

fn terminal_event(terminal_id: &str, output: String, code: Option<i32>) -> Output {
    Output::Event(UiEvent::TerminalOutput {
        terminal_id: terminal_id.to_string(),
        output,
        append: true,
        exited: false,
        exit_code: code,
        signal: None,
    })
}

/// One word of a command line for a POSIX shell: quoted unless it is plainly safe.
fn shell_word(word: &str) -> String {
    let safe = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%^".contains(c));
    if safe {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_words_are_quoted_for_the_shell_when_needed() {
        assert_eq!(shell_word("npm"), "npm");
        assert_eq!(shell_word("a b"), "'a b'");
        assert_eq!(shell_word("it's"), r"'it'\''s'");
        assert_eq!(shell_word(""), "''");
    }
}
