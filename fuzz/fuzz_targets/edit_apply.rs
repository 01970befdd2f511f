//! Edit and MultiEdit, the whole way through the write pipeline (read, match, replace, encode,
//! write) on a file in memory, against a reference written from the CLI's rules: exact matches,
//! unique unless replace_all, all-or-nothing, a deletion takes its line break along, an edit may
//! not target text an earlier one wrote, and a change that changes nothing fails. The file must
//! end exactly as the reference says, or unchanged when the edit fails. Inputs with curly quotes
//! (the CLI's quote normalisation) are only held to "unchanged on failure".
#![no_main]

use libfuzzer_sys::arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use serde_json::json;
use tether_core::tools::{Toolset, ToolsetConfig};
use tether_fuzz::{run, MemoryHost, ROOT};

const PLAIN: &[char] = &['a', 'b', 'c', 'x', ' ', '\n', 'é', '\t'];
const QUOTED: &[char] = &[
    'a', 'b', ' ', '\n', '\'', '"', '\u{2018}', '\u{2019}', '\u{201C}', '\u{201D}',
];

struct EditOp {
    old: String,
    new: String,
    all: bool,
}

fn text(u: &mut Unstructured, alphabet: &[char], min: usize, max: usize) -> Result<String> {
    let len = u.int_in_range(min..=max)?;
    (0..len).map(|_| u.choose(alphabet).copied()).collect()
}

/// The file after the edits by the CLI's rules; None when the call must fail.
fn reference(file: &str, edits: &[EditOp]) -> Option<String> {
    let mut current = file.to_string();
    for (i, edit) in edits.iter().enumerate() {
        if edit.old == edit.new {
            return None;
        }
        let core = edit.old.trim_end_matches('\n');
        if !core.is_empty() && edits[..i].iter().any(|e| !e.old.is_empty() && e.new.contains(core)) {
            return None;
        }
        let count = current.matches(edit.old.as_str()).count();
        if count == 0 || (count > 1 && !edit.all) {
            return None;
        }
        let with_break = format!("{}\n", edit.old);
        let (from, to) = if edit.new.is_empty() && !edit.old.ends_with('\n') && current.contains(&with_break) {
            (with_break.as_str(), "")
        } else {
            (edit.old.as_str(), edit.new.as_str())
        };
        current = if edit.all {
            current.replace(from, to)
        } else {
            current.replacen(from, to, 1)
        };
    }
    (current != file).then_some(current)
}

fn case(data: &[u8]) -> Result<()> {
    let mut u = Unstructured::new(data);
    let quoted = u.ratio(1, 4)?;
    let alphabet = if quoted { QUOTED } else { PLAIN };
    let file = text(&mut u, alphabet, 0, 48)?;
    let count = u.int_in_range(1..=4)?;
    let mut edits = Vec::new();
    for _ in 0..count {
        edits.push(EditOp {
            old: text(&mut u, alphabet, 1, 6)?,
            new: text(&mut u, alphabet, 0, 6)?,
            all: u.arbitrary()?,
        });
    }
    let multi = edits.len() > 1 || u.arbitrary()?;

    let host = MemoryHost::default();
    let path = format!("{ROOT}/f.txt");
    host.put(&path, file.as_bytes());
    let ts = Toolset::new(host, ToolsetConfig::new(ROOT)).expect("toolset");
    run(ts.call("Read", json!({"file_path": path})));
    let output = if multi {
        let list: Vec<_> = edits
            .iter()
            .map(|e| json!({"old_string": e.old, "new_string": e.new, "replace_all": e.all}))
            .collect();
        run(ts.call("MultiEdit", json!({"file_path": path, "edits": list})))
    } else {
        let e = &edits[0];
        run(ts.call(
            "Edit",
            json!({"file_path": path, "old_string": e.old, "new_string": e.new, "replace_all": e.all}),
        ))
    };
    let after = String::from_utf8(ts.host.bytes(&path).expect("the file is still there")).expect("UTF-8");
    if output.is_error {
        assert_eq!(after, file, "a failed edit changed the file: {}", output.text_content());
    }
    if quoted {
        return Ok(());
    }
    match reference(&file, &edits) {
        Some(expected) => {
            assert!(!output.is_error, "the edit should apply: {}", output.text_content());
            assert_eq!(after, expected);
        }
        None => assert!(
            output.is_error,
            "the edit should fail, got: {} -> {after:?}",
            output.text_content()
        ),
    }
    Ok(())
}

fuzz_target!(|data: &[u8]| {
    let _ = case(data);
});
