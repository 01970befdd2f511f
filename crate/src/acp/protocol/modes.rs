//! Session modes (Manual, Accept edits, Plan, …): the agent names them, the client picks one with
//! `session/set_mode`, and the agent reports a change with `current_mode_update` (or, for agents that
//! moved to config options, a `config_option_update` of the option with category `mode`).

use super::lenient::Meta;
use super::Request;
use crate::json::read_struct;
use serde::Serialize;

pub type SessionModeId = String;

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionModeState {
    pub current_mode_id: SessionModeId,
    pub available_modes: Vec<SessionMode>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(SessionModeState {
    current_mode_id: required "currentModeId",
    available_modes: list "availableModes",
    meta: or_default "_meta",
});

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SessionMode {
    pub id: SessionModeId,
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(SessionMode {
    id: required "id",
    name: required "name",
    description: or_default "description",
    meta: or_default "_meta",
});

/// `session/set_mode`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SetSessionModeRequest {
    pub session_id: String,
    pub mode_id: SessionModeId,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(SetSessionModeRequest {
    session_id: required "sessionId",
    mode_id: required "modeId",
    meta: or_default "_meta",
});

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SetSessionModeResponse {
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(SetSessionModeResponse {
    meta: or_default "_meta",
});

impl Request for SetSessionModeRequest {
    const METHOD: &'static str = "session/set_mode";
    type Response = SetSessionModeResponse;
}

/// `sessionUpdate: "current_mode_update"`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CurrentModeUpdate {
    pub current_mode_id: SessionModeId,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(CurrentModeUpdate {
    current_mode_id: required "currentModeId",
    meta: or_default "_meta",
});

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn set_mode_is_written_exactly() {
        let request = SetSessionModeRequest {
            session_id: "s1".into(),
            mode_id: "default".into(),
            meta: None,
        };
        assert_eq!(
            serde_json::to_value(request).unwrap(),
            json!({"sessionId": "s1", "modeId": "default"})
        );
    }

    #[test]
    fn modes_without_a_name_are_dropped() {
        let state: SessionModeState = crate::json::from_value(json!({
            "currentModeId": "auto",
            "availableModes": [{"id": "default", "name": "Manual"}, {"id": "broken"}, {"id": "plan", "name": "Plan", "description": 4}]
        }))
        .unwrap();
        assert_eq!(state.available_modes.len(), 2);
        assert_eq!(state.available_modes[1].description, None);
    }
}
