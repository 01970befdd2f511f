//! No import cycles between the files of `crate/src`, nor between its folders: each file's
//! `crate::…` and `super::…` paths (test modules left out) are resolved to the file of the deepest
//! module they name, and the graph of those edges must have no cycle, nor the same graph with each
//! file replaced by its top folder. A cycle means two files (or two layers) can only be understood
//! (and changed) together; break it by moving what both need into a module below them.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module path (`["tools", "edit"]`) for every `.rs` file under `src`.
fn modules(src: &Path) -> BTreeMap<Vec<String>, PathBuf> {
    let mut out = BTreeMap::new();
    let mut dirs = vec![src.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let relative = path.strip_prefix(src).unwrap().with_extension("");
            let mut parts: Vec<String> = relative.iter().map(|p| p.to_string_lossy().into_owned()).collect();
            if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
                parts.pop();
            }
            out.insert(parts, path);
        }
    }
    out
}

/// The file's code without its `#[cfg(test)] mod … { … }` blocks and comment lines.
fn code_of(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].trim_start();
        let next = lines.get(i + 1).map_or("", |l| l.trim_start());
        if line.starts_with("#[cfg(test)]") && next.starts_with("mod ") && next.ends_with('{') {
            // Skip to the closing brace at the test module's own indentation.
            let indent = lines[i + 1].len() - next.len();
            let close = format!("{}}}", " ".repeat(indent));
            i += 2;
            while i < lines.len() && lines[i] != close {
                i += 1;
            }
        } else if !line.starts_with("//") {
            out.push(lines[i]);
        }
        i += 1;
    }
    out.join("\n")
}

/// Every path that starts with `crate` or `super`, with `use` groups (`{a, b::c}`) expanded.
fn paths_in(code: &str) -> Vec<Vec<String>> {
    let bytes = code.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let at_word_start =
            i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_' || bytes[i - 1] == b':');
        let root = ["crate::", "super::"]
            .into_iter()
            .find(|r| bytes[i..].starts_with(r.as_bytes()));
        match root {
            Some(root) if at_word_start => {
                let (paths, end) = parse_path(code, i + root.len() - 2, vec![root[..root.len() - 2].to_string()]);
                out.extend(paths);
                i = end.max(i + 1);
            }
            _ => i += 1,
        }
    }
    out
}

/// Parse `::seg::seg…` (and a trailing `::{…}` group) from `at`, after `prefix`.
fn parse_path(code: &str, mut at: usize, mut prefix: Vec<String>) -> (Vec<Vec<String>>, usize) {
    let bytes = code.as_bytes();
    loop {
        if !bytes[at..].starts_with(b"::") {
            return (vec![prefix], at);
        }
        at += 2;
        if bytes.get(at) == Some(&b'{') {
            let mut paths = Vec::new();
            at += 1;
            loop {
                while bytes.get(at).is_some_and(|b| b.is_ascii_whitespace() || *b == b',') {
                    at += 1;
                }
                if at >= bytes.len() || bytes[at] == b'}' {
                    return (paths, at + 1);
                }
                let start = at;
                while bytes.get(at).is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_') {
                    at += 1;
                }
                let mut item = prefix.clone();
                if at > start {
                    item.push(code[start..at].to_string());
                }
                let (inner, end) = parse_path(code, at, item);
                paths.extend(inner);
                // Skip `as name` and anything else up to the next item.
                at = end;
                while bytes.get(at).is_some_and(|b| *b != b',' && *b != b'}') {
                    at += 1;
                }
            }
        }
        let start = at;
        while bytes.get(at).is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_') {
            at += 1;
        }
        if at == start {
            return (vec![prefix], at);
        }
        prefix.push(code[start..at].to_string());
    }
}

/// The module a path names, as deep as it goes, from the file of module `from`.
fn resolve(from: &[String], path: &[String], known: &BTreeMap<Vec<String>, PathBuf>) -> Option<Vec<String>> {
    let mut base: Vec<String> = match path.first()?.as_str() {
        "crate" => Vec::new(),
        // `super` of `tools/edit.rs` and of `tools/edit/mod.rs` is `tools`.
        "super" => {
            let mut base = from.to_vec();
            base.pop()?;
            base
        }
        _ => return None,
    };
    let mut rest = &path[1..];
    while rest.first().map(String::as_str) == Some("super") {
        base.pop()?;
        rest = &rest[1..];
    }
    let mut found = base.clone();
    for segment in rest {
        base.push(segment.clone());
        if known.contains_key(&base) {
            found = base.clone();
        } else {
            break;
        }
    }
    Some(found)
}

/// Strongly connected components with more than one member (Tarjan).
fn cycles(graph: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> Vec<Vec<Vec<String>>> {
    struct State<'a> {
        graph: &'a BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
        index: BTreeMap<&'a Vec<String>, usize>,
        low: BTreeMap<&'a Vec<String>, usize>,
        stack: Vec<&'a Vec<String>>,
        on_stack: BTreeSet<&'a Vec<String>>,
        out: Vec<Vec<Vec<String>>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a Vec<String>) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on_stack.insert(v);
        for w in s.graph.get(v).into_iter().flatten() {
            if !s.index.contains_key(w) {
                visit(s, w);
                let low = s.low[w].min(s.low[v]);
                s.low.insert(v, low);
            } else if s.on_stack.contains(w) {
                let low = s.index[w].min(s.low[v]);
                s.low.insert(v, low);
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                component.push(w.clone());
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.out.push(component);
            }
        }
    }
    let mut state = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !state.index.contains_key(v) {
            visit(&mut state, v);
        }
    }
    state.out
}

fn file_name(module: &[String], known: &BTreeMap<Vec<String>, PathBuf>) -> String {
    known[module].display().to_string()
}

/// Each module's imports: the modules its file names (itself left out).
fn import_graph(known: &BTreeMap<Vec<String>, PathBuf>) -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    let mut graph: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    for (module, file) in known {
        let code = code_of(&std::fs::read_to_string(file).unwrap());
        let edges = graph.entry(module.clone()).or_default();
        for path in paths_in(&code) {
            if let Some(target) = resolve(module, &path, known) {
                if &target != module {
                    edges.insert(target);
                }
            }
        }
    }
    graph
}

/// The graph with every module replaced by the top folder of `crate/src` it is in (`acp` for
/// `acp/protocol/rpc.rs`; a top file with its folder, `events.rs` with `events/`); `lib.rs`,
/// which only declares the modules, is left out.
fn folder_graph(graph: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    let folder = |module: &Vec<String>| module.first().map(|top| vec![top.clone()]);
    let mut folders: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    for (module, targets) in graph {
        let Some(from) = folder(module) else { continue };
        let edges = folders.entry(from.clone()).or_default();
        edges.extend(targets.iter().filter_map(folder).filter(|to| *to != from));
    }
    folders
}

fn src() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src")
}

#[test]
fn crate_src_has_no_import_cycles_between_files() {
    let known = modules(&src());
    let found = cycles(&import_graph(&known));
    let described: Vec<String> = found
        .iter()
        .map(|component| {
            let files: Vec<String> = component.iter().map(|m| file_name(m, &known)).collect();
            files.join(" <-> ")
        })
        .collect();
    assert!(
        found.is_empty(),
        "import cycles in crate/src:\n{}",
        described.join("\n")
    );
}

/// A folder is a layer: what it imports must not import it back, through any other folder.
#[test]
fn crate_src_has_no_import_cycles_between_folders() {
    let known = modules(&src());
    let folders = folder_graph(&import_graph(&known));
    let found = cycles(&folders);
    let described: Vec<String> = found
        .iter()
        .map(|component| {
            let names: Vec<String> = component.iter().map(|m| m.join("/")).collect();
            let edges: Vec<String> = component
                .iter()
                .flat_map(|from| {
                    folders[from]
                        .iter()
                        .filter(|to| component.contains(to))
                        .map(move |to| format!("{} -> {}", from.join("/"), to.join("/")))
                })
                .collect();
            format!("{} ({})", names.join(" <-> "), edges.join(", "))
        })
        .collect();
    assert!(
        found.is_empty(),
        "import cycles between the folders of crate/src:\n{}",
        described.join("\n")
    );
}

#[test]
fn a_cycle_through_files_of_different_folders_is_a_folder_cycle() {
    let module = |path: &str| path.split('/').map(str::to_string).collect::<Vec<String>>();
    let graph = BTreeMap::from([
        (module("config/mod"), BTreeSet::from([module("acp/config")])),
        (module("acp/config"), BTreeSet::from([module("config/json")])),
        (module("config/json"), BTreeSet::new()),
    ]);
    assert!(cycles(&graph).is_empty(), "no cycle between the files");
    assert_eq!(
        cycles(&folder_graph(&graph)),
        vec![vec![module("acp"), module("config")]]
    );
}

#[test]
fn the_scan_sees_use_groups_and_nested_paths() {
    let code = "use super::{a::{b, c}, d};\nuse crate::x::y::Z;\nfn f() { crate::q::r(); }";
    let paths = paths_in(code);
    let shown: Vec<String> = paths.iter().map(|p| p.join("::")).collect();
    assert_eq!(
        shown,
        [
            "super::a::b",
            "super::a::c",
            "super::d",
            "crate::x::y::Z",
            "crate::q::r"
        ]
    );
}
