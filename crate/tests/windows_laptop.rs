//! A Windows laptop driving a Linux server: the CLI runs in a Windows mirror folder and names
//! files with Windows paths (backslashes, any drive-letter case, forward slashes too); every tool
//! must act on the server's POSIX paths, and refuse a Windows path that is not in the mirror.
//! The "server" is a real temporary directory driven through NativeHost.

use futures::executor::block_on;
use serde_json::{json, Value};
use tether_core::native::NativeHost;
use tether_core::tools::{ToolOutput, Toolset, ToolsetConfig};

const MIRROR: &str =
    r"C:\Users\dev\AppData\Roaming\Code\User\globalStorage\tether.tether\mirrors\ssh-remote+build\proj-1f2e3d4c5b";

mod common;

use common::TempWorkspace;

/// The server's workspace, reached from a Windows laptop's mirror folder.
struct Server {
    files: TempWorkspace,
    ts: Toolset<NativeHost>,
}

impl Server {
    fn new(files: &[(&str, &str)]) -> Self {
        let workspace = TempWorkspace::new();
        for (rel, text) in files {
            workspace.write(rel, text);
        }
        let mut config = ToolsetConfig::new(workspace.root());
        config.mirror = Some(MIRROR.to_string());
        let ts = workspace.toolset_with(config);
        Server { files: workspace, ts }
    }

    fn laptop(rel: &str) -> String {
        format!(r"{MIRROR}\{}", rel.replace('/', r"\"))
    }

    fn call(&self, tool: &str, args: Value) -> ToolOutput {
        block_on(self.ts.call(tool, args))
    }

    fn ok(&self, tool: &str, args: Value) -> String {
        let out = self.call(tool, args);
        assert!(!out.is_error, "{tool} failed: {}", out.text_content());
        out.text_content()
    }

    fn read(&self, rel: &str) -> String {
        self.files.read(rel).unwrap()
    }
}

#[test]
fn read_of_a_windows_mirror_path_reads_the_server_file() {
    let server = Server::new(&[("src/main.rs", "fn main() {}\n")]);
    let text = server.ok("Read", json!({"file_path": Server::laptop("src/main.rs")}));
    assert!(text.contains("fn main() {}"), "{text}");
}

#[test]
fn mirror_paths_match_with_forward_slashes_and_any_drive_letter_case() {
    let server = Server::new(&[("src/lib.rs", "pub fn lib() {}\n")]);
    let spelled = format!("{}/src/lib.rs", MIRROR.replace('\\', "/").replacen('C', "c", 1));
    let text = server.ok("Read", json!({"file_path": spelled}));
    assert!(text.contains("pub fn lib()"), "{text}");
}

#[test]
fn write_through_a_windows_path_creates_the_file_on_the_server() {
    let server = Server::new(&[]);
    server.ok(
        "Write",
        json!({"file_path": Server::laptop("docs/notes.md"), "content": "remote notes\n"}),
    );
    assert_eq!(server.read("docs/notes.md"), "remote notes\n");
}

#[test]
fn edit_through_a_windows_path_changes_the_server_file() {
    let server = Server::new(&[("app.py", "print('hello')\n")]);
    let file = Server::laptop("app.py");
    server.ok("Read", json!({"file_path": file}));
    server.ok(
        "Edit",
        json!({"file_path": file, "old_string": "hello", "new_string": "from windows"}),
    );
    assert_eq!(server.read("app.py"), "print('from windows')\n");
}

#[test]
fn glob_in_a_windows_mirror_folder_lists_the_server_files() {
    let server = Server::new(&[("pkg/a.ts", "a\n"), ("pkg/b.ts", "b\n"), ("pkg/c.md", "c\n")]);
    let text = server.ok("Glob", json!({"pattern": "**/*.ts", "path": Server::laptop("pkg")}));
    assert!(
        text.contains("a.ts") && text.contains("b.ts") && !text.contains("c.md"),
        "{text}"
    );
    assert!(
        !text.contains(r"C:\"),
        "results name server paths, not the laptop's: {text}"
    );
}

#[test]
fn grep_with_a_windows_path_searches_the_server_tree() {
    let server = Server::new(&[("src/one.rs", "let needle = 1;\n"), ("src/two.rs", "let hay = 2;\n")]);
    let text = server.ok("Grep", json!({"pattern": "needle", "path": Server::laptop("src")}));
    assert!(text.contains("one.rs") && !text.contains("two.rs"), "{text}");
}

#[test]
fn bash_commands_naming_the_mirror_run_on_the_server_paths() {
    let server = Server::new(&[("data.txt", "server data\n")]);
    let command = format!("cat '{}'", Server::laptop("data.txt"));
    let text = server.ok("Bash", json!({"command": command}));
    assert!(text.contains("server data"), "{text}");
}

#[test]
fn a_windows_path_outside_the_mirror_is_refused_with_the_reason() {
    let server = Server::new(&[]);
    let out = server.call("Read", json!({"file_path": r"C:\Windows\System32\drivers\etc\hosts"}));
    assert!(out.is_error);
    let text = out.text_content();
    assert!(text.contains(r"C:\Windows"), "names the path: {text}");
}
