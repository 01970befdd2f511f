//! Terminals Tether runs for the agent (`terminal/*`): each a command in the workspace's shell,
//! started through the host (the remote executor on a remote workspace). Its output is read as it
//! comes — one long poll at a time — kept up to the agent's byte limit (dropped from the start, on
//! a character boundary), shown in the tool card, and handed to the agent when it asks.

use crate::id_table::IdTable;
use crate::rpc::Id;

#[derive(Debug, Default)]
pub struct Terminal {
    /// The host's id, once started.
    pub host_id: Option<String>,
    pub output: String,
    /// Output was dropped to stay within the limit.
    pub truncated: bool,
    pub limit: Option<usize>,
    /// How it ended: `(exit code, signal)`.
    pub exit: Option<(Option<i32>, Option<String>)>,
    /// `terminal/wait_for_exit` requests to answer when it ends.
    pub waiters: Vec<Id>,
    /// The agent asked to kill it.
    pub killed: bool,
}

impl Terminal {
    /// Add output, dropping from the start what goes over the limit.
    pub fn append(&mut self, data: &str) {
        self.output.push_str(data);
        let Some(limit) = self.limit else { return };
        if self.output.len() <= limit {
            return;
        }
        let mut cut = self.output.len() - limit;
        while !self.output.is_char_boundary(cut) {
            cut += 1;
        }
        self.output.drain(..cut);
        self.truncated = true;
    }

    /// The exit status as ACP writes it.
    pub fn exit_status(&self) -> Option<serde_json::Value> {
        self.exit
            .as_ref()
            .map(|(code, signal)| serde_json::json!({"exitCode": code, "signal": signal}))
    }
}

#[derive(Debug, Default)]
pub struct Terminals {
    map: IdTable<Terminal>,
    next: u64,
}

impl Terminals {
    /// A new terminal's id.
    pub fn create(&mut self, limit: Option<u64>) -> String {
        self.next += 1;
        let id = format!("tether-terminal-{}", self.next);
        let terminal = Terminal {
            limit: limit.and_then(|l| usize::try_from(l).ok()),
            ..Terminal::default()
        };
        self.map.insert(id.clone(), terminal);
        id
    }

    pub fn get(&mut self, id: &str) -> Option<&mut Terminal> {
        self.map.get_mut(id)
    }

    pub fn remove(&mut self, id: &str) -> Option<Terminal> {
        self.map.remove(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_over_the_limit_is_dropped_from_the_start_on_a_character_boundary() {
        let mut terminals = Terminals::default();
        let id = terminals.create(Some(5));
        let terminal = terminals.get(&id).unwrap();
        terminal.append("ab");
        assert!(!terminal.truncated);
        terminal.append("cdé"); // é is two bytes: 6 bytes in all, one over
        assert_eq!(terminal.output, "bcdé");
        assert!(terminal.truncated);
        terminal.append("ééé");
        assert_eq!(terminal.output, "éé");
    }

    #[test]
    fn exit_status_is_written_with_both_fields() {
        let mut terminal = Terminal {
            exit: Some((Some(3), None)),
            ..Terminal::default()
        };
        assert_eq!(
            terminal.exit_status().unwrap(),
            serde_json::json!({"exitCode": 3, "signal": null})
        );
        terminal.exit = None;
        assert_eq!(terminal.exit_status(), None);
    }
}
