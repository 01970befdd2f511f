//! Process execution for the native host: foreground runs with a timeout and an output cap, and
//! background processes whose output is collected by reader threads.
//!
//! Every command runs in its own session and process group, so a timeout or a kill reaches the
//! whole pipeline (`sleep 100 | cat`), and a program that opens `/dev/tty` to prompt fails at once
//! instead of stopping until the timeout. Output is read by one thread per stream into a bounded
//! buffer; the caller never blocks on a pipe that a leftover grandchild keeps open.

use crate::host::{
    dropped_output_note, BackgroundStatus, ExecOutput, ExecRequest, HostError, HostErrorKind, HostResult,
};
use std::collections::{HashMap, VecDeque};
use std::io::Read;
use std::path::Path;
use std::process::{Child, ChildStderr, ChildStdout, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread;
use std::time::{Duration, Instant};

/// How often a foreground run checks whether its process has ended.
const WAIT_POLL: Duration = Duration::from_millis(5);
/// How often a background process's watchdog reaps it or enforces its lifetime.
const WATCHDOG_POLL: Duration = Duration::from_millis(50);
/// After the shell has exited, output still in the pipes is collected until the pipes close, no
/// byte arrives for `DRAIN_IDLE`, or `DRAIN_MAX` has passed (a leftover `server &` keeps them open).
const DRAIN_IDLE: Duration = Duration::from_millis(250);
const DRAIN_MAX: Duration = Duration::from_secs(2);
/// ripgrep's output is bounded by the search tools' own limits; this only guards memory.
const PROGRAM_OUTPUT_CAP: usize = 256 * 1024 * 1024;

/// Which bytes a capture keeps once it holds `cap` of them.
#[derive(Clone, Copy)]
enum Keep {
    /// The first `cap` bytes (foreground runs report "the rest was dropped").
    Head,
    /// The latest `cap` bytes not yet read (a long-running background process).
    Latest,
}

struct Capture {
    bytes: VecDeque<u8>,
    cap: usize,
    keep: Keep,
    /// Bytes received in all.
    total: u64,
    /// Bytes dropped to stay under `cap` and not yet reported to a reader.
    dropped: u64,
    /// The stream reached end of file.
    closed: bool,
}

type SharedCapture = Arc<Mutex<Capture>>;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A reader thread cannot leave the data inconsistent, so a poisoned lock is still usable.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Capture {
    fn shared(cap: usize, keep: Keep) -> SharedCapture {
        Arc::new(Mutex::new(Capture {
            bytes: VecDeque::new(),
            cap,
            keep,
            total: 0,
            dropped: 0,
            closed: false,
        }))
    }

    fn push(&mut self, data: &[u8]) {
        self.total += data.len() as u64;
        match self.keep {
            Keep::Head => {
                let room = self.cap.saturating_sub(self.bytes.len());
                let taken = data.len().min(room);
                self.bytes.extend(&data[..taken]);
                self.dropped += (data.len() - taken) as u64;
            }
            Keep::Latest => {
                self.bytes.extend(data);
                let excess = self.bytes.len().saturating_sub(self.cap);
                if excess > 0 {
                    self.bytes.drain(..excess);
                    self.dropped += excess as u64;
                }
            }
        }
    }

    /// Everything kept so far, and whether anything was dropped.
    fn take_all(&mut self) -> (Vec<u8>, bool) {
        let dropped = self.dropped > 0;
        (self.bytes.drain(..).collect(), dropped)
    }

    /// The unread output as text. While the process may still write, a multi-byte character cut
    /// at the end stays buffered so the next read gets it whole.
    fn take_unread_text(&mut self, process_done: bool) -> String {
        let mut bytes: Vec<u8> = self.bytes.drain(..).collect();
        if !process_done {
            let keep_from = incomplete_utf8_tail(&bytes);
            self.bytes.extend(bytes.drain(keep_from..));
        }
        let mut text = String::new();
        if self.dropped > 0 {
            text.push_str(&dropped_output_note(self.dropped, self.cap));
            self.dropped = 0;
        }
        text.push_str(&String::from_utf8_lossy(&bytes));
        text
    }
}

/// Index where a trailing, not yet complete UTF-8 sequence starts (`bytes.len()` if none).
fn incomplete_utf8_tail(bytes: &[u8]) -> usize {
    let len = bytes.len();
    for back in 1..=len.min(3) {
        let b = bytes[len - back];
        if b & 0b1100_0000 == 0b1000_0000 {
            continue; // continuation byte: look further back for the lead byte
        }
        let needed = match b {
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF7 => 4,
            _ => 1,
        };
        return if needed > back { len - back } else { len };
    }
    len
}

fn spawn_reader(mut stream: impl Read + Send + 'static, sink: SharedCapture) {
    thread::spawn(move || {
        let mut buf = [0u8; 64 * 1024];
        loop {
            match stream.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => lock(&sink).push(&buf[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => break,
            }
        }
        lock(&sink).closed = true;
    });
}

fn attach_readers(child: &mut Child, stdout: &SharedCapture, stderr: &SharedCapture) {
    let out: Option<ChildStdout> = child.stdout.take();
    let err: Option<ChildStderr> = child.stderr.take();
    match out {
        Some(s) => spawn_reader(s, stdout.clone()),
        None => lock(stdout).closed = true,
    }
    match err {
        Some(s) => spawn_reader(s, stderr.clone()),
        None => lock(stderr).closed = true,
    }
}

/// Wait until both streams are closed, or quiet for `DRAIN_IDLE`, or `max` has passed.
fn drain(stdout: &SharedCapture, stderr: &SharedCapture, max: Duration) {
    let start = Instant::now();
    let mut last_total = u64::MAX;
    let mut last_change = start;
    loop {
        let (closed, total) = {
            let (o, e) = (lock(stdout), lock(stderr));
            (o.closed && e.closed, o.total + e.total)
        };
        let now = Instant::now();
        if closed || now.duration_since(start) >= max {
            return;
        }
        if total != last_total {
            last_total = total;
            last_change = now;
        } else if now.duration_since(last_change) >= DRAIN_IDLE {
            return;
        }
        thread::sleep(WAIT_POLL);
    }
}

fn shell_command(command: &str) -> Command {
    let shell = if Path::new("/bin/bash").exists() {
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
        // SAFETY: setsid is async-signal-safe and touches no memory of the parent. It makes the
        // child the leader of a new session and process group (pgid = its pid, which `kill_group`
        // relies on) without a controlling terminal.
        unsafe {
            cmd.pre_exec(|| {
                if libc::setsid() == -1 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }
}

fn check_cwd(cwd: &str) -> HostResult<()> {
    match std::fs::metadata(cwd) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(_) => Err(HostError::new(
            HostErrorKind::NotADirectory,
            format!("the working directory {cwd} is not a directory"),
        )),
        Err(_) => Err(HostError::not_found(format!(
            "the working directory {cwd} does not exist"
        ))),
    }
}

fn spawn(mut cmd: Command) -> HostResult<Child> {
    cmd.spawn()
        .map_err(|e| HostError::other(format!("could not start the process: {e}")))
}

/// Kill the child's whole process group (the shell and everything it started). Only called while
/// the child is not yet reaped, so its pid, and with it the group id, cannot have been reused.
fn kill_group(child: &mut Child) {
    #[cfg(unix)]
    {
        if let Ok(pgid) = libc::pid_t::try_from(child.id()) {
            // A group id of 0 or 1 would signal our own group or init: never.
            if pgid > 1 {
                // SAFETY: plain syscall on a process group we created.
                unsafe {
                    libc::kill(-pgid, libc::SIGKILL);
                }
            }
        }
    }
    let _ = child.kill();
}

fn exit_code(status: Option<ExitStatus>) -> Option<i32> {
    status.and_then(|s| s.code())
}

enum BackgroundState {
    Running,
    Exited(Option<i32>),
}

struct Background {
    child: Child,
    stdout: SharedCapture,
    stderr: SharedCapture,
    state: BackgroundState,
    deadline: Instant,
}

impl Background {
    /// Reap the process if it ended; kill it if it outlived its lifetime.
    fn refresh(&mut self) {
        if !matches!(self.state, BackgroundState::Running) {
            return;
        }
        match self.child.try_wait() {
            Ok(Some(status)) => self.state = BackgroundState::Exited(status.code()),
            Ok(None) if Instant::now() >= self.deadline => self.kill(),
            Ok(None) => {}
            Err(_) => self.kill(),
        }
    }

    fn kill(&mut self) {
        kill_group(&mut self.child);
        let _ = self.child.wait();
        self.state = BackgroundState::Exited(None);
    }

    fn running(&self) -> bool {
        matches!(self.state, BackgroundState::Running)
    }
}

type BackgroundHandle = Arc<Mutex<Background>>;

#[derive(Default)]
pub struct NativeExec {
    background: Mutex<HashMap<String, BackgroundHandle>>,
    next_id: AtomicU64,
}

impl NativeExec {
    pub fn run(&self, request: &ExecRequest) -> HostResult<ExecOutput> {
        check_cwd(&request.cwd)?;
        let mut cmd = shell_command(&request.command);
        prepare(&mut cmd, &request.cwd, &request.env);
        run_to_end(cmd, request.timeout_ms, request.max_output_bytes)
    }

    /// Run a program directly (no shell), e.g. ripgrep.
    pub fn run_program(&self, program: &str, args: &[String], cwd: &str, timeout_ms: u64) -> HostResult<ExecOutput> {
        check_cwd(cwd)?;
        let mut cmd = Command::new(program);
        cmd.args(args);
        prepare(&mut cmd, cwd, &[]);
        run_to_end(cmd, timeout_ms, PROGRAM_OUTPUT_CAP)
    }

    pub fn spawn_background(&self, request: &ExecRequest) -> HostResult<String> {
        check_cwd(&request.cwd)?;
        let mut cmd = shell_command(&request.command);
        prepare(&mut cmd, &request.cwd, &request.env);
        let mut child = spawn(cmd)?;
        let stdout = Capture::shared(request.max_output_bytes, Keep::Latest);
        let stderr = Capture::shared(request.max_output_bytes, Keep::Latest);
        attach_readers(&mut child, &stdout, &stderr);
        let handle: BackgroundHandle = Arc::new(Mutex::new(Background {
            child,
            stdout,
            stderr,
            state: BackgroundState::Running,
            deadline: Instant::now() + Duration::from_millis(request.timeout_ms.max(1)),
        }));
        spawn_watchdog(handle.clone());
        let id = format!("native-{}", self.next_id.fetch_add(1, Ordering::Relaxed) + 1);
        lock(&self.background).insert(id.clone(), handle);
        Ok(id)
    }

    fn handle(&self, id: &str) -> HostResult<BackgroundHandle> {
        lock(&self.background)
            .get(id)
            .cloned()
            .ok_or_else(|| HostError::not_found(format!("no background process {id}")))
    }

    pub fn read_background(&self, id: &str) -> HostResult<BackgroundStatus> {
        let handle = self.handle(id)?;
        let (running, exit_code, stdout, stderr) = {
            let mut bg = lock(&handle);
            bg.refresh();
            let exit_code = match bg.state {
                BackgroundState::Exited(code) => code,
                BackgroundState::Running => None,
            };
            (bg.running(), exit_code, bg.stdout.clone(), bg.stderr.clone())
        };
        if !running {
            // The last words of a finished process may still be in the pipe.
            drain(&stdout, &stderr, DRAIN_MAX);
        }
        let stdout = lock(&stdout).take_unread_text(!running);
        let stderr = lock(&stderr).take_unread_text(!running);
        Ok(BackgroundStatus {
            stdout,
            stderr,
            running,
            exit_code,
        })
    }

    pub fn kill_background(&self, id: &str) -> HostResult<bool> {
        let handle = self.handle(id)?;
        let mut bg = lock(&handle);
        bg.refresh();
        if !bg.running() {
            return Ok(false);
        }
        bg.kill();
        Ok(true)
    }
}

/// Reaps a background process as soon as it ends (no zombie waits for the next read) and stops it
/// at the end of its lifetime even when nobody asks about it.
fn spawn_watchdog(handle: BackgroundHandle) {
    thread::spawn(move || loop {
        {
            let mut bg = lock(&handle);
            bg.refresh();
            if !bg.running() {
                return;
            }
        }
        thread::sleep(WATCHDOG_POLL);
    });
}

impl Drop for NativeExec {
    fn drop(&mut self) {
        for handle in lock(&self.background).values() {
            let mut bg = lock(handle);
            bg.refresh();
            if bg.running() {
                bg.kill();
            }
        }
    }
}

fn run_to_end(cmd: Command, timeout_ms: u64, cap: usize) -> HostResult<ExecOutput> {
    let mut child = spawn(cmd)?;
    let stdout = Capture::shared(cap, Keep::Head);
    let stderr = Capture::shared(cap, Keep::Head);
    attach_readers(&mut child, &stdout, &stderr);
    let deadline = Instant::now() + Duration::from_millis(timeout_ms.max(1));
    let (status, timed_out) = loop {
        match child.try_wait() {
            Ok(Some(status)) => break (Some(status), false),
            Ok(None) if Instant::now() >= deadline => {
                kill_group(&mut child);
                break (child.wait().ok(), true);
            }
            Ok(None) => thread::sleep(WAIT_POLL),
            Err(e) => {
                kill_group(&mut child);
                let _ = child.wait();
                return Err(HostError::other(format!("waiting for the process failed: {e}")));
            }
        }
    };
    drain(&stdout, &stderr, DRAIN_MAX);
    let (out, out_dropped) = lock(&stdout).take_all();
    let (err, err_dropped) = lock(&stderr).take_all();
    Ok(ExecOutput {
        stdout: String::from_utf8_lossy(&out).into_owned(),
        stderr: String::from_utf8_lossy(&err).into_owned(),
        exit_code: if timed_out { None } else { exit_code(status) },
        timed_out,
        truncated: out_dropped || err_dropped,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn incomplete_utf8_tail_finds_a_cut_character() {
        let euro = "€".as_bytes(); // 3 bytes
        assert_eq!(incomplete_utf8_tail(b"abc"), 3);
        assert_eq!(incomplete_utf8_tail(&[b'a', euro[0]]), 1);
        assert_eq!(incomplete_utf8_tail(&[b'a', euro[0], euro[1]]), 1);
        assert_eq!(incomplete_utf8_tail(&[b'a', euro[0], euro[1], euro[2]]), 4);
        assert_eq!(incomplete_utf8_tail(&[0xff]), 1);
        assert_eq!(incomplete_utf8_tail(&[]), 0);
    }

    #[test]
    fn latest_capture_drops_the_oldest_bytes_and_says_so() {
        let c = Capture::shared(4, Keep::Latest);
        lock(&c).push(b"abcdef");
        let text = lock(&c).take_unread_text(true);
        assert!(text.ends_with("cdef"), "{text}");
        assert!(text.contains("2 bytes of earlier output were dropped"), "{text}");
    }

    #[test]
    fn head_capture_keeps_the_first_bytes() {
        let c = Capture::shared(4, Keep::Head);
        lock(&c).push(b"abcdef");
        assert_eq!(lock(&c).take_all(), (b"abcd".to_vec(), true));
    }
}
