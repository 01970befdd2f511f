//! The agent's plan: a to-do list it sends whole each time it changes (`sessionUpdate: "plan"`).

use super::lenient::{open_enum, Meta};
use crate::json::read_struct;
use serde::Serialize;

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Plan {
    /// Every entry, in order: a new plan replaces the previous one.
    pub entries: Vec<PlanEntry>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(Plan {
    entries: list "entries",
    meta: or_default "_meta",
});

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlanEntry {
    pub content: String,
    pub priority: PlanEntryPriority,
    pub status: PlanEntryStatus,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(PlanEntry {
    content: required "content",
    priority: or_default "priority",
    status: or_default "status",
    meta: or_default "_meta",
});

open_enum! {
    #[derive(Default)]
    pub enum PlanEntryPriority {
        High = "high",
        #[default]
        Medium = "medium",
        Low = "low",
    }
}

open_enum! {
    #[derive(Default)]
    pub enum PlanEntryStatus {
        #[default]
        Pending = "pending",
        InProgress = "in_progress",
        Completed = "completed",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_plan_reads_its_entries_and_writes_them_back() {
        let raw = json!({"entries": [
            {"content": "Read the config", "priority": "high", "status": "completed"},
            {"content": "Flip debug", "priority": "medium", "status": "in_progress"},
            {"content": "Run the tests", "priority": "low", "status": "pending"},
        ]});
        let plan: Plan = crate::json::from_value(raw.clone()).unwrap();
        assert_eq!(plan.entries[1].status, PlanEntryStatus::InProgress);
        assert_eq!(serde_json::to_value(&plan).unwrap(), raw);
    }

    #[test]
    fn entries_without_content_are_dropped_and_odd_fields_defaulted() {
        let plan: Plan = crate::json::from_value(json!({"entries": [
            {"priority": "high"},
            {"content": "Ship", "priority": 3, "status": "blocked"},
        ]}))
        .unwrap();
        assert_eq!(plan.entries.len(), 1);
        assert_eq!(plan.entries[0].priority, PlanEntryPriority::Medium);
        assert_eq!(plan.entries[0].status, PlanEntryStatus::Unknown("blocked".into()));
    }
}
