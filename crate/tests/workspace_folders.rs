//! Multi-root workspaces and where the CLI reads the project's setup: the path mapping of several
//! folders (each with its own mirror on a remote), tools landing in the right folder, and the
//! launch flags for a remote folder, a local one, additional folders, skills and output styles.

use futures::executor::block_on;
use serde_json::json;
use std::fs;
use tether_core::backend::{Backend, SessionContext};
use tether_core::claude::launch::LaunchConfig;
use tether_core::claude::{ClaudeBackend, ClaudeConfig};
use tether_core::config::{CommonConfig, FolderConfig};
use tether_core::native::NativeHost;
use tether_core::paths::{PathError, PathMapper};
use tether_core::permissions::PermissionMode;
use tether_core::tools::{Toolset, ToolsetConfig};

fn two_remote_folders() -> PathMapper {
    PathMapper::new("/srv/app")
        .unwrap()
        .with_mirror("/home/me/mirrors/gpu/app-1")
        .unwrap()
        .with_folder("/data/lib", Some("/home/me/mirrors/gpu/lib-2"))
        .unwrap()
}

#[test]
fn a_mirror_path_of_the_second_folder_maps_onto_the_second_root() {
    let m = two_remote_folders();
    assert_eq!(
        m.resolve("/home/me/mirrors/gpu/lib-2/src/x.rs").unwrap(),
        "/data/lib/src/x.rs"
    );
    assert_eq!(m.resolve("/home/me/mirrors/gpu/lib-2").unwrap(), "/data/lib");
    assert_eq!(m.resolve("/home/me/mirrors/gpu/app-1/a.txt").unwrap(), "/srv/app/a.txt");
    // Relative paths stay relative to the session's folder.
    assert_eq!(m.resolve("a.txt").unwrap(), "/srv/app/a.txt");
}

#[test]
fn every_folder_is_inside_the_workspace_and_nothing_else_is() {
    let m = two_remote_folders();
    assert!(m.contains("/data/lib/src/x.rs"));
    assert!(m.contains("/srv/app"));
    assert!(!m.contains("/data/library/x"));
    assert!(matches!(
        m.resolve_inside("/etc/passwd"),
        Err(PathError::OutsideWorkspace { .. })
    ));
    assert_eq!(m.folder_roots().collect::<Vec<_>>(), ["/data/lib"]);
}

#[test]
fn workspace_paths_of_each_folder_go_back_to_their_own_mirror() {
    let m = two_remote_folders();
    assert_eq!(m.to_mirror("/data/lib/src/x.rs"), "/home/me/mirrors/gpu/lib-2/src/x.rs");
    assert_eq!(m.to_mirror("/srv/app/a.txt"), "/home/me/mirrors/gpu/app-1/a.txt");
    assert_eq!(m.to_mirror("/elsewhere/y"), "/elsewhere/y");
}

#[test]
fn commands_naming_either_mirror_run_in_the_right_folder() {
    let m = two_remote_folders();
    assert_eq!(
        m.rewrite_command("cd /home/me/mirrors/gpu/lib-2 && bash /home/me/mirrors/gpu/app-1/.claude/skills/s/run.sh"),
        "cd /data/lib && bash /srv/app/.claude/skills/s/run.sh"
    );
}

#[test]
fn a_windows_laptop_maps_the_second_folders_mirror_onto_a_linux_server() {
    let m = PathMapper::new("/srv/app")
        .unwrap()
        .with_mirror("C:\\m\\app")
        .unwrap()
        .with_folder("/data/lib", Some("C:\\m\\lib"))
        .unwrap();
    assert_eq!(m.resolve("c:\\M\\lib\\src\\x.rs").unwrap(), "/data/lib/src/x.rs");
    assert_eq!(m.to_mirror("/data/lib/src/x.rs"), "C:\\m\\lib\\src\\x.rs");
    assert_eq!(m.rewrite_command("type C:\\m\\lib\\a.txt"), "type /data/lib/a.txt");
}

#[test]
fn a_folder_in_another_path_style_is_refused() {
    let error = PathMapper::new("/srv/app").unwrap().with_folder("C:\\lib", None).err();
    assert!(error.is_some());
}

#[test]
fn an_edit_named_by_the_second_folders_mirror_lands_in_the_second_folder() {
    let first = tempfile::tempdir().unwrap();
    let second = tempfile::tempdir().unwrap();
    let root = first.path().canonicalize().unwrap().to_string_lossy().into_owned();
    let other = second.path().canonicalize().unwrap().to_string_lossy().into_owned();
    fs::write(format!("{other}/lib.txt"), "old line\n").unwrap();
    let config = ToolsetConfig {
        mirror: Some("/laptop/mirror/app".into()),
        folders: vec![(other.clone(), Some("/laptop/mirror/lib".into()))],
        ..ToolsetConfig::new(root.clone())
    };
    let tools = Toolset::new(NativeHost::new(), config).unwrap();
    let read = block_on(tools.call("Read", json!({"file_path": "/laptop/mirror/lib/lib.txt"})));
    assert!(!read.is_error, "{}", read.text_content());
    let edit = block_on(tools.call(
        "Edit",
        json!({"file_path": "/laptop/mirror/lib/lib.txt", "old_string": "old", "new_string": "new"}),
    ));
    assert!(!edit.is_error, "{}", edit.text_content());
    assert_eq!(fs::read_to_string(format!("{other}/lib.txt")).unwrap(), "new line\n");
    assert!(!std::path::Path::new(&format!("{root}/lib.txt")).exists());
}

fn launch_args(common: CommonConfig, claude: ClaudeConfig) -> Vec<String> {
    let context = SessionContext {
        root: &common.root.clone(),
        config: &common,
        windows: false,
        mode: PermissionMode::Default,
    };
    ClaudeBackend::new(&context, claude).launch(Vec::new()).args
}

fn common(mirror: Option<&str>) -> CommonConfig {
    CommonConfig {
        root: "/srv/app".into(),
        mirror: mirror.map(str::to_string),
        home_dir: "/home/me".into(),
        ..CommonConfig::default()
    }
}

const STRICT: [&str; 3] = ["--setting-sources=", "--restricted", "--strict-mcp-config"];

#[test]
fn a_remote_folder_reads_nothing_of_the_project_itself() {
    let args = launch_args(common(Some("/laptop/mirror/app")), ClaudeConfig::default());
    for flag in STRICT {
        assert!(args.iter().any(|a| a == flag), "{flag} in {args:?}");
    }
    assert!(!LaunchConfig::remote().reads_project_mcp());
    assert!(!LaunchConfig::remote().reads_project_settings());
}

#[test]
fn a_local_folder_reads_settings_hooks_and_mcp_servers_as_claude_code_does() {
    let args = launch_args(common(None), ClaudeConfig::default());
    assert!(
        args.iter().any(|a| a == "--setting-sources=user,project,local"),
        "{args:?}"
    );
    assert!(
        !args.iter().any(|a| a == "--restricted" || a == "--strict-mcp-config"),
        "{args:?}"
    );
    // Tether's tools still replace the built-ins.
    let disallowed = args.iter().find_map(|a| a.strip_prefix("--disallowedTools=")).unwrap();
    for tool in ["Read", "Edit", "Write", "Bash", "Glob", "Grep"] {
        assert!(disallowed.split(',').any(|t| t == tool), "{tool} in {disallowed}");
    }
    assert!(LaunchConfig::local().reads_project_mcp());
    assert!(LaunchConfig::local().reads_project_settings());
    // Its hooks are the project's own, run by the CLI where the files are.
    let settings = args.iter().find_map(|a| a.strip_prefix("--settings=")).unwrap();
    assert!(!settings.contains("disableAllHooks"), "{settings}");
}

#[test]
fn the_other_folders_are_additional_directories_by_the_path_the_cli_knows() {
    let remote = CommonConfig {
        additional_folders: Some(vec![FolderConfig {
            root: "/data/lib".into(),
            mirror: Some("/laptop/mirror/lib".into()),
        }]),
        ..common(Some("/laptop/mirror/app"))
    };
    let args = launch_args(remote, ClaudeConfig::default());
    assert!(args.iter().any(|a| a == "--add-dir=/laptop/mirror/lib"), "{args:?}");
    let local = CommonConfig {
        additional_folders: Some(vec![FolderConfig {
            root: "/data/lib".into(),
            mirror: None,
        }]),
        ..common(None)
    };
    let args = launch_args(local, ClaudeConfig::default());
    assert!(args.iter().any(|a| a == "--add-dir=/data/lib"), "{args:?}");
}

#[test]
fn mirrored_skills_come_as_a_plugin_folder_and_the_output_style_as_a_flag_setting() {
    let claude = ClaudeConfig {
        plugin_dirs: Some(vec!["/laptop/mirror/app/.claude".into()]),
        output_style: Some("app:Pirate".into()),
        ..ClaudeConfig::default()
    };
    let args = launch_args(common(Some("/laptop/mirror/app")), claude);
    assert!(
        args.iter().any(|a| a == "--plugin-dir=/laptop/mirror/app/.claude"),
        "{args:?}"
    );
    let settings = args.iter().find_map(|a| a.strip_prefix("--settings=")).unwrap();
    let settings: serde_json::Value = serde_json::from_str(settings).unwrap();
    assert_eq!(
        settings,
        json!({"useAutoModeDuringPlan": false, "disableAllHooks": true, "outputStyle": "app:Pirate"}),
        "a mirrored skill's frontmatter hooks would run on the laptop"
    );
    // Still as strict as without them.
    for flag in STRICT {
        assert!(args.iter().any(|a| a == flag), "{flag} in {args:?}");
    }
}
