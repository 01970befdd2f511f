//! Process execution for the native host: foreground runs with a timeout and an output cap, and
//! background processes whose output is collected by reader threads.

use crate::host::{BackgroundStatus, ExecOutput, ExecRequest, HostError, HostResult};
use std::collections::HashMap;
use std::io::Read;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// Bytes kept per stream of a background process; older output beyond it is dropped.
const BACKGROUND_KEEP_BYTES: usize = 8 * 1024 * 1024;

#[derive(Default)]
struct Captured {
    bytes: Vec<u8>,
    total: usize,
    /// How far `read_background` has consumed (background runs only).
    consumed: usize,
}

type Shared = Arc<Mutex<Captured>>;

struct Background {
    child: Child,
    stdout: Shared,
    stderr: Shared,
    exit_code: Option<i32>,
    exited: bool,
    deadline: Instant,
}

#[derive(Default)]
pub struct NativeExec {
    background: Mutex<HashMap<String, Background>>,
    next_id: Mutex<u64>,
}

fn shell_command(command: &str) -> Command {
    let shell = if std::path::Path::new("/bin/bash").exists() {
        "/bin/bash"
    } else {
        "/bin/sh"
    };
    let mut cmd = Command::new(shell);
    cmd.arg("-c").arg(command);
    cmd
}

fn prepare(cmd: &mut Command, cwd: &str, env: &[(String, String)]) {
    cmd.current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        // Own process group, so a timeout kills the whole pipeline, not just the shell.
        cmd.process_group(0);
    }
}

fn reader(mut stream: impl Read + Send + 'static, sink: Shared, cap: usize) -> JoinHandle<()> {
    thread::spawn(move || {
        let mut buf = [0u8; 64 * 1024];
        loop {
            match stream.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    let mut c = sink.lock().unwrap_or_else(|p| p.into_inner());
                    c.total += n;
                    let room = cap.saturating_sub(c.bytes.len());
                    c.bytes.extend_from_slice(&buf[..n.min(room)]);
                }
            }
        }
    })
}

/// Kill the child's whole process group (the shell and everything it started), then the child.
/// A direct `kill(2)`: procps-ng 4's `kill -KILL -<pgid>` misparses the group id (a pgid of
/// 16349 became `kill(-1)`, i.e. every process we may signal).
fn kill_tree(child: &mut Child) {
    #[cfg(unix)]
    if let Ok(pgid) = libc::pid_t::try_from(child.id()) {
        if pgid > 1 {
            // SAFETY: kill(2) with a negative pid signals exactly that process group; no memory is touched.
            unsafe {
                libc::kill(-pgid, libc::SIGKILL);
            }
        }
    }
    let _ = child.kill();
}

fn spawn_error(e: std::io::Error, cwd: &str) -> HostError {
    if e.kind() == std::io::ErrorKind::NotFound && !std::path::Path::new(cwd).is_dir() {
        HostError::not_found(format!("working directory {cwd} does not exist"))
    } else {
        HostError::other(format!("could not start the process: {e}"))
    }
}

impl NativeExec {
    pub fn run(&self, request: &ExecRequest) -> HostResult<ExecOutput> {
        let mut cmd = shell_command(&request.command);
        prepare(&mut cmd, &request.cwd, &request.env);
        self.run_to_end(cmd, &request.cwd, request.timeout_ms, request.max_output_bytes)
    }

    /// Run a program directly (no shell), e.g. ripgrep.
    pub fn run_program(&self, program: &str, args: &[String], cwd: &str, timeout_ms: u64) -> HostResult<ExecOutput> {
        let mut cmd = Command::new(program);
        cmd.args(args);
        prepare(&mut cmd, cwd, &[]);
        self.run_to_end(cmd, cwd, timeout_ms, 256 * 1024 * 1024)
    }

    fn run_to_end(&self, mut cmd: Command, cwd: &str, timeout_ms: u64, cap: usize) -> HostResult<ExecOutput> {
        let mut child = cmd.spawn().map_err(|e| spawn_error(e, cwd))?;
        let out: Shared = Arc::default();
        let err: Shared = Arc::default();
        let t1 = reader(child.stdout.take().expect("piped"), out.clone(), cap);
        let t2 = reader(child.stderr.take().expect("piped"), err.clone(), cap);
        let deadline = Instant::now() + Duration::from_millis(timeout_ms.max(1));
        let mut timed_out = false;
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break Some(status),
                Ok(None) if Instant::now() >= deadline => {
                    timed_out = true;
                    kill_tree(&mut child);
                    break child.wait().ok();
                }
                Ok(None) => thread::sleep(Duration::from_millis(2)),
                Err(e) => return Err(HostError::other(format!("waiting for the process failed: {e}"))),
            }
        };
        // A grandchild that keeps the pipes open must not hang us after the shell exits.
        if timed_out {
            thread::sleep(Duration::from_millis(20));
        } else {
            let _ = t1.join();
            let _ = t2.join();
        }
        let (stdout, out_total) = take(&out);
        let (stderr, err_total) = take(&err);
        Ok(ExecOutput {
            truncated: out_total > stdout.len() || err_total > stderr.len(),
            stdout: String::from_utf8_lossy(&stdout).into_owned(),
            stderr: String::from_utf8_lossy(&stderr).into_owned(),
            exit_code: if timed_out { None } else { status.and_then(|s| s.code()) },
            timed_out,
        })
    }

    pub fn spawn_background(&self, request: &ExecRequest) -> HostResult<String> {
        let mut cmd = shell_command(&request.command);
        prepare(&mut cmd, &request.cwd, &request.env);
        let mut child = cmd.spawn().map_err(|e| spawn_error(e, &request.cwd))?;
        let stdout: Shared = Arc::default();
        let stderr: Shared = Arc::default();
        reader(
            child.stdout.take().expect("piped"),
            stdout.clone(),
            BACKGROUND_KEEP_BYTES,
        );
        reader(
            child.stderr.take().expect("piped"),
            stderr.clone(),
            BACKGROUND_KEEP_BYTES,
        );
        let id = {
            let mut n = self.next_id.lock().unwrap_or_else(|p| p.into_inner());
            *n += 1;
            format!("native-{}", *n)
        };
        self.background.lock().unwrap_or_else(|p| p.into_inner()).insert(
            id.clone(),
            Background {
                child,
                stdout,
                stderr,
                exit_code: None,
                exited: false,
                deadline: Instant::now() + Duration::from_millis(request.timeout_ms.max(1)),
            },
        );
        Ok(id)
    }

    pub fn read_background(&self, id: &str) -> HostResult<BackgroundStatus> {
        let mut all = self.background.lock().unwrap_or_else(|p| p.into_inner());
        let bg = all
            .get_mut(id)
            .ok_or_else(|| HostError::not_found(format!("no background process {id}")))?;
        refresh(bg);
        Ok(BackgroundStatus {
            stdout: consume(&bg.stdout),
            stderr: consume(&bg.stderr),
            running: !bg.exited,
            exit_code: bg.exit_code,
        })
    }

    pub fn kill_background(&self, id: &str) -> HostResult<bool> {
        let mut all = self.background.lock().unwrap_or_else(|p| p.into_inner());
        let bg = all
            .get_mut(id)
            .ok_or_else(|| HostError::not_found(format!("no background process {id}")))?;
        refresh(bg);
        if bg.exited {
            return Ok(false);
        }
        kill_tree(&mut bg.child);
        let _ = bg.child.wait();
        bg.exited = true;
        Ok(true)
    }
}

impl Drop for NativeExec {
    fn drop(&mut self) {
        let mut all = self.background.lock().unwrap_or_else(|p| p.into_inner());
        for bg in all.values_mut() {
            if !bg.exited {
                kill_tree(&mut bg.child);
                let _ = bg.child.wait();
            }
        }
    }
}

fn refresh(bg: &mut Background) {
    if bg.exited {
        return;
    }
    match bg.child.try_wait() {
        Ok(Some(status)) => {
            bg.exited = true;
            bg.exit_code = status.code();
        }
        Ok(None) if Instant::now() >= bg.deadline => {
            kill_tree(&mut bg.child);
            let _ = bg.child.wait();
            bg.exited = true;
        }
        _ => {}
    }
}

fn take(shared: &Shared) -> (Vec<u8>, usize) {
    let mut c = shared.lock().unwrap_or_else(|p| p.into_inner());
    (std::mem::take(&mut c.bytes), c.total)
}

fn consume(shared: &Shared) -> String {
    let mut c = shared.lock().unwrap_or_else(|p| p.into_inner());
    let start = c.consumed.min(c.bytes.len());
    let new = String::from_utf8_lossy(&c.bytes[start..]).into_owned();
    c.consumed = c.bytes.len();
    new
}
