//! The background shells Bash started in this session. Their output is read from the host here,
//! and only here, and kept: BashOutput takes what is new since its last call, and the shell's
//! task panel shows its last lines, so neither takes output from the other. Each shell also
//! knows how it ended (its exit code, stopped by the user or KillShell, or its lifetime over),
//! and tells its panel as [`UiEvent::TaskUpdate`]s.

use super::tail::Tail;
use crate::events::UiEvent;
use crate::host::{dropped_output_note, BackgroundStatus, Exec, HostResult};
use crate::tools::locks::PathLocks;
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;

/// A background shell started by Bash with `run_in_background`.
#[derive(Clone, Debug)]
pub struct ShellRecord {
    pub host_id: String,
    pub command: String,
    /// What its panel is called: Bash's `description`, else the command.
    pub title: String,
    pub started_ms: f64,
    /// How long the host lets it run.
    pub lifetime_ms: u64,
}

/// A shell ended by this much before its lifetime was over was stopped by something else.
const LIFETIME_SLACK_MS: f64 = 1000.0;

/// Unread bytes of each stream kept for BashOutput between two calls; older output is dropped
/// first (the hosts keep the same).
const UNREAD_BYTES: usize = 4 * 1024 * 1024;

#[derive(Default)]
struct Unread {
    text: String,
    dropped: usize,
}

impl Unread {
    fn push(&mut self, chunk: &str) {
        self.text.push_str(chunk);
        if self.text.len() > UNREAD_BYTES {
            let mut cut = self.text.len() - UNREAD_BYTES;
            while !self.text.is_char_boundary(cut) {
                cut += 1;
            }
            self.text.drain(..cut);
            self.dropped += cut;
        }
    }

    fn take(&mut self) -> String {
        let text = std::mem::take(&mut self.text);
        match std::mem::take(&mut self.dropped) {
            0 => text,
            dropped => dropped_output_note(dropped as u64, UNREAD_BYTES) + &text,
        }
    }
}

struct Shell {
    record: ShellRecord,
    /// The Bash call that started it.
    tool_use_id: Option<String>,
    stdout: Unread,
    stderr: Unread,
    tail: Tail,
    /// How it ended, once the host said so: its exit code (None: killed by a signal).
    exit: Option<Option<i32>>,
    /// When the core learnt of the end.
    ended_ms: f64,
    /// The user asked to stop it; the next watch kills it.
    stop_requested: bool,
    /// The user or KillShell killed it.
    stopped: bool,
    /// The host could no longer be asked about it.
    lost: Option<String>,
    /// The panel was told it started.
    announced: bool,
    /// What the panel was last told (status and output); None until then or to tell it again.
    shown: Option<(&'static str, String)>,
}

impl Shell {
    fn running(&self) -> bool {
        self.exit.is_none() && self.lost.is_none()
    }

    /// The panel's status: `running`, then `completed`, `failed`, `stopped` or `timed_out`.
    fn status(&self) -> &'static str {
        match self.exit {
            None if self.lost.is_some() => "failed",
            None => "running",
            Some(_) if self.stopped => "stopped",
            Some(Some(0)) => "completed",
            Some(Some(_)) => "failed",
            Some(None) => {
                let limit = self.record.started_ms + self.record.lifetime_ms as f64 - LIFETIME_SLACK_MS;
                if self.ended_ms >= limit {
                    "timed_out"
                } else {
                    "failed"
                }
            }
        }
    }

    /// The update for its panel when something changed since the last one.
    fn update(&mut self, id: &str) -> Option<UiEvent> {
        let now = (self.status(), self.tail.shown());
        if self.shown.as_ref() == Some(&now) {
            return None;
        }
        let (status, output) = now.clone();
        self.shown = Some(now);
        Some(UiEvent::TaskUpdate {
            task_id: id.to_string(),
            tool_use_id: self.tool_use_id.clone(),
            status: status.to_string(),
            description: Some(self.record.title.clone()),
            summary: self.lost.clone(),
            output: Some(output),
            exit_code: self.exit.flatten(),
        })
    }
}

/// The session's background shells, by the id the model uses (`bash_1`, `bash_2`, …).
#[derive(Default)]
pub struct Shells {
    shells: RefCell<BTreeMap<u64, Shell>>,
    next: Cell<u64>,
    /// One host read of a shell at a time, so output is kept in the order it came.
    reads: PathLocks,
}

fn number(id: &str) -> Option<u64> {
    id.strip_prefix("bash_")?.parse().ok()
}

fn id_of(n: u64) -> String {
    format!("bash_{n}")
}

impl Shells {
    /// Register a shell just started; returns its id.
    pub fn add(&self, record: ShellRecord) -> String {
        let n = self.next.get() + 1;
        self.next.set(n);
        let shell = Shell {
            record,
            tool_use_id: None,
            stdout: Unread::default(),
            stderr: Unread::default(),
            tail: Tail::default(),
            exit: None,
            ended_ms: 0.0,
            stop_requested: false,
            stopped: false,
            lost: None,
            announced: false,
            shown: None,
        };
        self.shells.borrow_mut().insert(n, shell);
        id_of(n)
    }

    pub fn get(&self, id: &str) -> Option<ShellRecord> {
        let n = number(id)?;
        self.shells.borrow().get(&n).map(|s| s.record.clone())
    }

    /// The ids of all shells, oldest first.
    pub fn ids(&self) -> Vec<String> {
        self.shells.borrow().keys().map(|&n| id_of(n)).collect()
    }

    /// The Bash call that started shell `id` (for its panel).
    pub fn set_tool_use_id(&self, id: &str, tool_use_id: &str) {
        self.with(id, |shell| shell.tool_use_id = Some(tool_use_id.to_string()));
    }

    /// What BashOutput reports: the output since its last call, and whether the shell runs.
    pub async fn read(&self, host: &(impl Exec + ?Sized), id: &str, now_ms: f64) -> HostResult<BackgroundStatus> {
        self.pull(host, id, now_ms).await?;
        let mut shells = self.shells.borrow_mut();
        let Some(shell) = number(id).and_then(|n| shells.get_mut(&n)) else {
            return Ok(BackgroundStatus::default());
        };
        Ok(BackgroundStatus {
            stdout: shell.stdout.take(),
            stderr: shell.stderr.take(),
            running: shell.exit.is_none(),
            exit_code: shell.exit.flatten(),
        })
    }

    /// Kill shell `id` (KillShell, or the user's Stop); false when it had already exited.
    pub async fn kill(&self, host: &(impl Exec + ?Sized), id: &str) -> HostResult<bool> {
        let Some(record) = self.get(id) else {
            return Ok(false);
        };
        let killed = host.kill_background(&record.host_id).await?;
        if killed {
            self.with(id, |shell| shell.stopped = true);
        }
        Ok(killed)
    }

    /// The user asked to stop shell `id` from its panel: None when no shell has that id. The
    /// kill happens at the next [`watch`](Self::watch), which also tells the panel again.
    pub fn request_stop(&self, id: &str) -> Option<()> {
        self.with(id, |shell| {
            shell.stop_requested = shell.running();
            shell.shown = None;
        })
    }

    /// Panels for the shells started since the last call.
    pub fn announce(&self) -> Vec<UiEvent> {
        let mut shells = self.shells.borrow_mut();
        shells
            .iter_mut()
            .filter(|(_, shell)| !shell.announced)
            .map(|(&n, shell)| {
                shell.announced = true;
                shell.shown = Some(("running", String::new()));
                UiEvent::TaskUpdate {
                    task_id: id_of(n),
                    tool_use_id: shell.tool_use_id.clone(),
                    status: "started".into(),
                    description: Some(shell.record.title.clone()),
                    summary: None,
                    output: Some(String::new()),
                    exit_code: None,
                }
            })
            .collect()
    }

    /// Read every running shell's new output, kill those the user stopped, and return the panel
    /// updates for what changed; the flag says whether a shell still runs.
    pub async fn watch(&self, host: &(impl Exec + ?Sized), now_ms: impl Fn() -> f64) -> (Vec<UiEvent>, bool) {
        // A shell is watched once its panel was announced, and until the panel knows its end.
        for n in self.numbers(|shell| shell.announced && (shell.running() || shell.shown.is_none())) {
            let id = id_of(n);
            if self.with(&id, |shell| std::mem::take(&mut shell.stop_requested)) == Some(true) {
                if let Err(e) = self.kill(host, &id).await {
                    self.with(&id, |shell| shell.lost = Some(e.message));
                }
            }
            if let Err(e) = self.pull(host, &id, now_ms()).await {
                self.with(&id, |shell| shell.lost = Some(e.message));
            }
        }
        let mut shells = self.shells.borrow_mut();
        let updates = shells
            .iter_mut()
            .filter(|(_, shell)| shell.announced)
            .filter_map(|(&n, shell)| shell.update(&id_of(n)))
            .collect();
        let running = shells.values().any(Shell::running);
        (updates, running)
    }

    /// The session ends: every shell still running is killed. Returns the panels' last updates.
    pub async fn end_all(&self, host: &(impl Exec + ?Sized), now_ms: impl Fn() -> f64) -> Vec<UiEvent> {
        let mut updates = self.announce();
        for n in self.numbers(Shell::running) {
            self.with(&id_of(n), |shell| shell.stop_requested = true);
        }
        updates.extend(self.watch(host, now_ms).await.0);
        updates
    }

    /// Read shell `id`'s new output from the host into its buffers (one read at a time).
    async fn pull(&self, host: &(impl Exec + ?Sized), id: &str, now_ms: f64) -> HostResult<()> {
        let Some(record) = self.get(id) else {
            return Ok(());
        };
        self.reads
            .serialize(id, async {
                if self.with(id, |shell| shell.exit.is_some()) != Some(false) {
                    return Ok(());
                }
                let status = host.read_background(&record.host_id).await?;
                self.with(id, |shell| {
                    shell.stdout.push(&status.stdout);
                    shell.stderr.push(&status.stderr);
                    shell.tail.push(&status.stdout);
                    shell.tail.push(&status.stderr);
                    if !status.running {
                        shell.exit = Some(status.exit_code);
                        shell.ended_ms = now_ms;
                    }
                });
                Ok(())
            })
            .await
    }

    fn with<T>(&self, id: &str, f: impl FnOnce(&mut Shell) -> T) -> Option<T> {
        let n = number(id)?;
        self.shells.borrow_mut().get_mut(&n).map(f)
    }

    fn numbers(&self, keep: impl Fn(&Shell) -> bool) -> Vec<u64> {
        self.shells
            .borrow()
            .iter()
            .filter(|(_, shell)| keep(shell))
            .map(|(&n, _)| n)
            .collect()
    }
}
