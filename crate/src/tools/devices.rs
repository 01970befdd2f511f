//! The device and process files the CLI's Read refuses by name (2.1.330): a stream that never ends
//! (`/dev/zero`), a terminal, another process's memory or environment (`/proc/PID/environ`). Most
//! are not regular files and the cache refuses them anyway, but `/proc` shows its files as regular
//! (size 0), so only the name tells them apart. Only POSIX paths have such names.

/// Read's refusal of `path` (as the model wrote it, or where it resolves), with the CLI's words.
pub(crate) fn refusal(path: &str) -> Option<String> {
    Some(match classify(path)? {
        Special::File => {
            format!("Cannot read '{path}': this path names a device or process file that this tool does not read.")
        }
        Special::Links => format!(
            "Cannot read '{path}': it is or leads to a path through a /proc or /dev link that this tool does not follow; give the file's own path"
        ),
    })
}

#[derive(Debug, PartialEq, Eq)]
enum Special {
    /// A device or process file.
    File,
    /// A path through a link in /proc or /dev (a process's cwd, an fd) that the CLI does not follow.
    Links,
}

const FILES: [&str; 21] = [
    "/dev/zero",
    "/dev/random",
    "/dev/urandom",
    "/dev/full",
    "/dev/hwrng",
    "/dev/stdin",
    "/dev/tty",
    "/dev/console",
    "/proc/kmsg",
    "/dev/kmsg",
    "/proc/kcore",
    "/proc/vmcore",
    "/dev/core",
    "/dev/mem",
    "/dev/kmem",
    "/dev/port",
    "/dev/stdout",
    "/dev/stderr",
    "/dev/fd/0",
    "/dev/fd/1",
    "/dev/fd/2",
];

/// A process's files that hold its memory, environment, arguments or state.
const PROCESS_FILES: [&str; 14] = [
    "environ",
    "cmdline",
    "auxv",
    "maps",
    "smaps",
    "smaps_rollup",
    "numa_maps",
    "pagemap",
    "mem",
    "stat",
    "statm",
    "status",
    "syscall",
    "stack",
];

/// How many `/proc/PID/root` and `/proc/PID/task/TID` steps are undone before giving up.
const MAX_UNWRAPS: usize = 8;

fn classify(path: &str) -> Option<Special> {
    if !path.starts_with('/') {
        return None;
    }
    if climbs_out_of_proc_or_dev(path) {
        return Some(Special::Links);
    }
    let mut parts = normalize(path);
    for _ in 0..=MAX_UNWRAPS {
        if !matches!(parts.first().map(String::as_str), Some("proc" | "dev")) {
            return None;
        }
        if through_link(&parts) {
            return Some(Special::Links);
        }
        if is_special_file(&parts) {
            return Some(Special::File);
        }
        // `/proc/PID/root/x` is `/x` and `/proc/PID/task/TID/x` is `/proc/PID/x`: look again.
        let unwrapped = unwrap_proc(&parts)?;
        parts = unwrapped;
    }
    Some(Special::Links)
}

/// `..` that pops out of `/proc/X/…` or `/dev/X/…` (except `/dev/shm`): a link may stand there.
fn climbs_out_of_proc_or_dev(path: &str) -> bool {
    if !path.contains("/..") {
        return false;
    }
    let mut stack: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                if let [first, second, ..] = stack.as_slice() {
                    if *first == "proc" || (*first == "dev" && *second != "shm") {
                        return true;
                    }
                }
                stack.pop();
            }
            other => stack.push(other),
        }
    }
    false
}

fn normalize(path: &str) -> Vec<String> {
    let mut parts: Vec<String> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            other => parts.push(other.to_string()),
        }
    }
    parts
}

fn is_digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// `/proc/X/cwd/…`, `/proc/X/fd/N/…`, `/dev/fd/N/…`, `/dev/std{in,out,err}/…`.
fn through_link(parts: &[String]) -> bool {
    let p: Vec<&str> = parts.iter().map(String::as_str).collect();
    match p.as_slice() {
        ["proc", _, "cwd", _, ..] => true,
        ["proc", _, "fd", n, _, ..] | ["dev", "fd", n, _, ..] => is_digits(n),
        ["dev", "stdin" | "stdout" | "stderr", _, ..] => true,
        _ => false,
    }
}

fn is_special_file(parts: &[String]) -> bool {
    let joined = format!("/{}", parts.join("/"));
    if FILES.contains(&joined.as_str()) {
        return true;
    }
    let p: Vec<&str> = parts.iter().map(String::as_str).collect();
    match p.as_slice() {
        ["dev", "pts", n] => is_digits(n) || *n == "ptmx",
        ["dev", "ptmx"] => true,
        ["dev", tty] => tty.starts_with("tty"),
        ["proc", _, "map_files", ..] => true,
        ["proc", _, "fd", "0" | "1" | "2"] => true,
        // Another process's open files (the server's own `self` ones are ordinary paths).
        ["proc", pid, "fd", n] => *pid != "self" && is_digits(n),
        ["proc", _, file] => PROCESS_FILES.contains(file),
        _ => false,
    }
}

fn unwrap_proc(parts: &[String]) -> Option<Vec<String>> {
    match parts {
        [proc, _, root, rest @ ..] if proc == "proc" && root == "root" && !rest.is_empty() => Some(rest.to_vec()),
        [proc, pid, task, _, rest @ ..] if proc == "proc" && task == "task" && !rest.is_empty() => {
            let mut out = vec![proc.clone(), pid.clone()];
            out.extend_from_slice(rest);
            Some(out)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_and_process_files_are_refused_by_name() {
        for path in [
            "/dev/zero",
            "/dev/urandom",
            "/dev/tty3",
            "/dev/pts/0",
            "/proc/self/environ",
            "/proc/1/cmdline",
            "/proc/1/task/7/mem",
            "/proc/1/root/dev/zero",
            "/proc/kcore",
            "/dev/./zero",
        ] {
            assert_eq!(classify(path), Some(Special::File), "{path}");
        }
    }

    #[test]
    fn paths_through_proc_and_dev_links_are_refused() {
        for path in [
            "/proc/self/cwd/etc/passwd",
            "/dev/fd/3/x",
            "/proc/1/fd/4/y",
            "/proc/self/../1/environ",
        ] {
            assert_eq!(classify(path), Some(Special::Links), "{path}");
        }
    }

    #[test]
    fn ordinary_paths_are_not_special() {
        for path in [
            "/home/u/dev/zero",
            "/dev/null",
            "/dev/shm/../shm/x",
            "/proc/version",
            "/proc/self/fd/7",
            "relative/dev/zero",
            "C:\\dev\\zero",
        ] {
            assert_eq!(classify(path), None, "{path}");
        }
    }

    #[test]
    fn the_refusal_is_worded_as_the_cli_words_it() {
        assert_eq!(
            refusal("/dev/zero").unwrap(),
            "Cannot read '/dev/zero': this path names a device or process file that this tool does not read."
        );
    }
}
