//! Checkpoints: the before-image of each file the write tools change, per user message, kept in
//! a folder apart from the project; the preview and the rewind, and its refusals. Each test drives
//! `Toolset` on a real temporary workspace and checks one behaviour.

use futures::executor::block_on;
use serde_json::json;
use std::fs;
use tempfile::TempDir;
use tether_core::agent::{Agent, AgentOutput};
use tether_core::backend::Backend;
use tether_core::native::NativeHost;
use tether_core::registry::AgentConfig;
use tether_core::tools::checkpoints::rewind::{self, RewindAction};
use tether_core::tools::checkpoints::CheckpointStore;
use tether_core::tools::{Toolset, ToolsetConfig};

mod common;

use common::TempWorkspace;

/// A workspace, its tools with checkpoints, and the checkpoint folder (outside the workspace).
struct Session {
    files: TempWorkspace,
    store: TempDir,
    keep: usize,
    ts: Toolset<NativeHost>,
}

impl Session {
    fn new() -> Self {
        Self::keeping(100)
    }

    fn keeping(keep: usize) -> Self {
        let files = TempWorkspace::new();
        let store = tempfile::tempdir().unwrap();
        let ts = toolset(&files, &store, keep);
        Session { files, store, keep, ts }
    }

    /// The same session's tools made again (a window reload).
    fn reload(&mut self) {
        self.ts = toolset(&self.files, &self.store, self.keep);
    }

    fn begin(&self, message: &str) {
        block_on(self.ts.checkpoints.begin(&self.ts.host, message)).unwrap();
    }

    fn edit(&self, rel: &str, old: &str, new: &str) {
        let out = block_on(self.ts.call(
            "Edit",
            json!({"file_path": self.files.path(rel), "old_string": old, "new_string": new}),
        ));
        assert!(!out.is_error, "{}", out.text_content());
    }

    fn write(&self, rel: &str, content: &str) {
        let out = block_on(
            self.ts
                .call("Write", json!({"file_path": self.files.path(rel), "content": content})),
        );
        assert!(!out.is_error, "{}", out.text_content());
    }

    /// The turn ends: the before-images are written out.
    fn flush(&self) {
        block_on(self.ts.checkpoints.flush(&self.ts.host)).unwrap();
    }

    fn blobs(&self) -> usize {
        fs::read_dir(self.store.path().join("blobs")).map_or(0, |d| d.count())
    }
}

fn toolset(files: &TempWorkspace, store: &TempDir, keep: usize) -> Toolset<NativeHost> {
    files.toolset_with(ToolsetConfig {
        checkpoints: Some(CheckpointStore {
            dir: store.path().to_string_lossy().into_owned(),
            keep_messages: keep,
        }),
        ..ToolsetConfig::new(files.root())
    })
}

#[test]
fn rewind_restores_the_file_as_it_was_before_the_message() {
    let s = Session::new();
    s.files.write("a.txt", "one\ntwo\n");
    s.begin("user-1");
    s.edit("a.txt", "two", "TWO");
    s.edit("a.txt", "one", "ONE");
    let outcome = block_on(rewind::rewind(&s.ts, "user-1")).unwrap();
    assert_eq!(outcome.restored, vec!["a.txt"]);
    assert_eq!(s.files.read("a.txt").unwrap(), "one\ntwo\n");
}

#[test]
fn a_file_the_message_created_is_deleted_by_the_rewind() {
    let s = Session::new();
    s.begin("user-1");
    s.write("new/b.txt", "fresh\n");
    let preview = block_on(rewind::preview(&s.ts, "user-1")).unwrap();
    assert_eq!(preview.files[0].action, RewindAction::Delete);
    let outcome = block_on(rewind::rewind(&s.ts, "user-1")).unwrap();
    assert_eq!(outcome.deleted, vec!["new/b.txt"]);
    assert_eq!(s.files.read("new/b.txt"), None);
}

#[test]
fn the_preview_counts_the_lines_the_rewind_brings_back_and_takes_away() {
    let s = Session::new();
    s.files.write("a.txt", "keep\nold\n");
    s.begin("user-1");
    s.edit("a.txt", "old\n", "new1\nnew2\n");
    let preview = block_on(rewind::preview(&s.ts, "user-1")).unwrap();
    assert!(preview.known);
    let file = &preview.files[0];
    assert_eq!(
        (file.relative.as_str(), file.insertions, file.deletions),
        ("a.txt", 1, 2)
    );
    assert_eq!(file.problem, None);
    assert!(!preview.shell_commands);
}

#[test]
fn a_file_changed_since_tethers_last_write_is_refused_by_name_and_nothing_is_written() {
    let s = Session::new();
    s.files.write("a.txt", "a\n");
    s.files.write("b.txt", "b\n");
    s.begin("user-1");
    s.edit("a.txt", "a", "A");
    s.edit("b.txt", "b", "B");
    s.files.write("b.txt", "B and the user's line\n");
    let preview = block_on(rewind::preview(&s.ts, "user-1")).unwrap();
    assert!(preview.files[1]
        .problem
        .as_deref()
        .unwrap()
        .starts_with("changed since Tether last wrote it"));
    let refused = block_on(rewind::rewind(&s.ts, "user-1")).unwrap_err();
    assert!(
        refused.starts_with("Nothing was rewound: b.txt changed since"),
        "{refused}"
    );
    assert_eq!(s.files.read("a.txt").unwrap(), "A\n");
    assert_eq!(s.files.read("b.txt").unwrap(), "B and the user's line\n");
}

#[test]
fn rewinding_to_an_earlier_message_undoes_the_later_ones_too() {
    let s = Session::new();
    s.files.write("a.txt", "v0\n");
    s.begin("user-1");
    s.edit("a.txt", "v0", "v1");
    s.begin("user-2");
    s.edit("a.txt", "v1", "v2");
    s.write("c.txt", "made by the second\n");
    block_on(rewind::rewind(&s.ts, "user-1")).unwrap();
    assert_eq!(s.files.read("a.txt").unwrap(), "v0\n");
    assert_eq!(s.files.read("c.txt"), None);
}

#[test]
fn rewinding_to_a_later_message_keeps_the_earlier_ones_changes() {
    let s = Session::new();
    s.files.write("a.txt", "v0\n");
    s.begin("user-1");
    s.edit("a.txt", "v0", "v1");
    s.begin("user-2");
    s.edit("a.txt", "v1", "v2");
    block_on(rewind::rewind(&s.ts, "user-2")).unwrap();
    assert_eq!(s.files.read("a.txt").unwrap(), "v1\n");
    // And the first message can still be rewound after that.
    block_on(rewind::rewind(&s.ts, "user-1")).unwrap();
    assert_eq!(s.files.read("a.txt").unwrap(), "v0\n");
}

#[test]
fn a_shell_command_after_the_message_is_said_in_the_preview() {
    let s = Session::new();
    s.begin("user-1");
    let out = block_on(s.ts.call("Bash", json!({"command": "echo hi > made-by-shell.txt"})));
    assert!(!out.is_error, "{}", out.text_content());
    let preview = block_on(rewind::preview(&s.ts, "user-1")).unwrap();
    assert!(preview.shell_commands);
    assert!(preview.files.is_empty());
}

#[test]
fn checkpoints_survive_a_reload_of_the_session() {
    let mut s = Session::new();
    s.files.write("a.txt", "before\n");
    s.begin("user-1");
    s.edit("a.txt", "before", "after");
    s.begin("user-2");
    s.reload();
    let outcome = block_on(rewind::rewind(&s.ts, "user-1")).unwrap();
    assert_eq!(outcome.restored, vec!["a.txt"]);
    assert_eq!(s.files.read("a.txt").unwrap(), "before\n");
}

#[test]
fn a_file_is_saved_once_per_message_however_often_it_is_written() {
    let s = Session::new();
    s.files.write("a.txt", "0\n");
    s.begin("user-1");
    for n in 1..=5 {
        s.edit("a.txt", &format!("{}", n - 1), &format!("{n}"));
    }
    assert_eq!(s.blobs(), 0, "nothing written before the turn ends");
    s.flush();
    assert_eq!(s.blobs(), 1);
    s.begin("user-2");
    s.edit("a.txt", "5", "6");
    s.flush();
    assert_eq!(s.blobs(), 2);
}

#[test]
fn a_temp_file_left_by_a_write_cut_by_a_dropped_connection_is_removed_by_the_next_write() {
    let mut s = Session::new();
    s.files.write("a.txt", "x\n");
    s.begin("user-1");
    s.edit("a.txt", "x", "y");
    s.flush();
    // The connection dropped while the host wrote the journal and a blob at the turn's end.
    let stray_journal = s.store.path().join(".journal.json.tether-1795778053721-3.tmp");
    let stray_blob = s.store.path().join("blobs/.0001.tether-1795778053721-4.tmp");
    fs::write(&stray_journal, "{\"half").unwrap();
    fs::write(&stray_blob, "half").unwrap();
    s.reload();
    s.begin("user-2");
    s.edit("a.txt", "y", "z");
    s.flush();
    assert!(
        !stray_journal.exists() && !stray_blob.exists(),
        "the stray temp files are gone"
    );
    assert!(s.store.path().join("journal.json").exists());
    assert_eq!(s.blobs(), 2, "the before-images stay");
}

#[test]
fn nothing_of_the_checkpoints_lands_in_the_workspace() {
    let s = Session::new();
    s.files.write("a.txt", "x\n");
    s.begin("user-1");
    s.edit("a.txt", "x", "y");
    s.flush();
    let names: Vec<String> = fs::read_dir(s.files.dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, vec!["a.txt"]);
    assert!(s.store.path().join("journal.json").exists());
}

#[test]
fn the_oldest_messages_beyond_the_retention_are_dropped_with_their_blobs() {
    let s = Session::keeping(2);
    s.files.write("a.txt", "0\n");
    for n in 1..=3 {
        s.begin(&format!("user-{n}"));
        s.edit("a.txt", &format!("{}", n - 1), &format!("{n}"));
    }
    s.flush();
    assert_eq!(s.blobs(), 2);
    let pruned = block_on(rewind::preview(&s.ts, "user-1")).unwrap();
    assert!(!pruned.known);
    let refused = block_on(rewind::rewind(&s.ts, "user-1")).unwrap_err();
    assert!(refused.contains("no checkpoint"), "{refused}");
    block_on(rewind::rewind(&s.ts, "user-2")).unwrap();
    assert_eq!(s.files.read("a.txt").unwrap(), "1\n");
}

#[test]
fn a_user_message_writes_nothing_before_its_turn_ends() {
    let s = Session::new();
    s.files.write("a.txt", "x\n");
    s.begin("user-1");
    assert!(
        !s.store.path().join("journal.json").exists(),
        "nothing waits on a write before the prompt"
    );
    s.flush();
    assert!(s.store.path().join("journal.json").exists());
    assert!(block_on(rewind::preview(&s.ts, "user-1")).unwrap().known);
}

#[test]
fn a_message_dropped_beyond_the_retention_keeps_its_blob_until_the_journal_no_longer_names_it() {
    let s = Session::keeping(1);
    s.files.write("a.txt", "0\n");
    s.begin("user-1");
    s.edit("a.txt", "0", "1");
    s.flush();
    s.begin("user-2");
    assert_eq!(s.blobs(), 1, "the journal on disk still names user-1's blob");
    let on_disk = fs::read_to_string(s.store.path().join("journal.json")).unwrap();
    assert!(on_disk.contains("user-1") && !on_disk.contains("user-2"));
    s.flush();
    assert_eq!(s.blobs(), 0, "written without user-1, its blob goes");
    let on_disk = fs::read_to_string(s.store.path().join("journal.json")).unwrap();
    assert!(!on_disk.contains("user-1") && on_disk.contains("user-2"));
}

#[test]
fn without_a_user_message_nothing_is_recorded() {
    let s = Session::new();
    s.files.write("a.txt", "x\n");
    s.edit("a.txt", "x", "y");
    s.flush();
    assert_eq!(s.blobs(), 0);
    assert!(!s.store.path().join("journal.json").exists());
}

#[test]
fn a_checkpoint_failure_is_told_once_a_session_not_every_turn() {
    let files = TempWorkspace::new();
    // The checkpoint folder cannot be made: a file stands where it would go.
    let blocked = files.write("not-a-folder", "x");
    let config = json!({"backend": "claude", "root": files.root(), "homeDir": files.root(),
        "checkpoints": {"dir": format!("{blocked}/checkpoints")}});
    let AgentConfig { common, backend } = AgentConfig::from_json(&config).unwrap();
    let agent: Agent<NativeHost, dyn Backend> =
        Agent::new(NativeHost::new(), common, |context| backend.create(context)).unwrap();
    let told = |outputs: Vec<AgentOutput>| {
        common::events(&outputs)
            .iter()
            .filter(|e| {
                e["message"]
                    .as_str()
                    .is_some_and(|m| m.starts_with("Checkpoints could not be saved"))
            })
            .count()
    };
    // The checkpoints are written, and their failure told, at a turn's end.
    let turn = |message: &str| {
        let mut out = block_on(agent.begin_message(message));
        agent.prompt("hello", &[]);
        out.extend(block_on(agent.on_message(&common::result_line("success", "completed"))));
        out
    };
    assert_eq!(told(turn("user-1")), 1, "the first failure is told");
    assert_eq!(told(turn("user-2")), 0, "the same failure next turn is not");
}
