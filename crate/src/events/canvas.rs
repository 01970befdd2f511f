//! What a backend's canvas shows (a gateway's board widgets, canvas documents, A2UI surfaces), as
//! [`super::UiEvent::Canvas`] carries it to the canvas panel.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A change to the canvas.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(tag = "kind", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum CanvasUpdate {
    /// The session's board: its widgets, all of them.
    Board {
        session_id: String,
        revision: u64,
        widgets: Vec<CanvasWidget>,
    },
    /// A canvas document's HTML.
    Document { doc_id: String, html: String },
    /// An A2UI surface, created or with new components (replacing the old ones).
    Surface {
        surface_id: String,
        title: Option<String>,
        components: Vec<SurfaceComponent>,
    },
    /// An A2UI surface's whole data model, after a change.
    SurfaceData { surface_id: String, model: Value },
    /// The gateway's answer to a widget's call ([`CanvasAction::WidgetCall`]), for the panel to
    /// hand back to the widget: `result` when `ok`, else `error`.
    WidgetReply {
        widget: String,
        call_id: String,
        ok: bool,
        result: Value,
        error: Option<String>,
    },
}

/// A widget on a gateway's board.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct CanvasWidget {
    pub name: String,
    pub title: Option<String>,
    /// `html`, `mcp-app`, `plugin`.
    pub content_kind: String,
    pub revision: u64,
    /// Its page on the gateway's own origin (absolute); None when the gateway gave none there
    /// (a widget waiting for approval or rejected has none).
    pub frame_url: Option<String>,
    /// The view ticket its page and its calls carry (the page gets it from the panel).
    pub view_ticket: Option<String>,
    /// How long the ticket lasts from now, in milliseconds.
    pub view_ticket_ttl_ms: Option<u64>,
    /// `none`, `pending` (waiting for the user's approval), `granted`, `rejected`.
    pub grant_state: String,
    /// Which instance of the widget this revision is (a grant names it).
    pub instance_id: Option<String>,
    /// What the widget asks for (network origins, tools), in the gateway's words, shown when the
    /// user is asked to approve it.
    pub declared_summary: Vec<String>,
}

/// One component of an A2UI surface.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SurfaceComponent {
    pub id: String,
    /// `Text`, `Button`, `CodeBlock`, `FileTree`; others are shown as a placeholder.
    #[serde(rename = "type")]
    pub component_type: String,
    pub props: Value,
}

/// What the user did in the canvas panel, as the panel sends it back (a backend's `canvasAction`
/// command carries it as its arguments).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(tag = "kind", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum CanvasAction {
    /// A call a board widget made through its bridge (`window.openclaw`): `state.emit`
    /// `{payload}`, `data.read` `{bindingId, params}`, `action.run` `{action, params}` or
    /// `cron.trigger` `{jobId}`. It carries the widget's name, not its ticket: the backend uses
    /// the ticket the board gave that widget. Answered by [`CanvasUpdate::WidgetReply`].
    WidgetCall {
        widget: String,
        call_id: String,
        method: String,
        #[serde(default)]
        params: Value,
    },
    /// The user's decision on a widget waiting for approval.
    WidgetGrant {
        widget: String,
        granted: bool,
        revision: u64,
        instance_id: String,
    },
    /// Show a canvas document (again).
    Document { doc_id: String },
    /// An A2UI component's action: a Button's `onClick` (context `{componentId}`), a FileTree's
    /// `onSelect` (context `{componentId, path}`).
    Surface {
        surface_id: String,
        action: String,
        #[serde(default)]
        context: Value,
    },
}
