//! The canvas panel's actions sent to the gateway: a widget's call (answered back to the widget
//! whatever happens, so its promise never hangs), a widget grant, a document to show.

use super::outputs::notice;
use super::{OpenClawBackend, Request};
use crate::backend::Output;
use crate::config::json::JsonObject;
use crate::events::CanvasAction;
use crate::openclaw::canvas::Canvas;
use serde_json::Value;

impl OpenClawBackend {
    pub(super) fn send_canvas_action(&mut self, action: &CanvasAction, out: &mut Vec<Output>) {
        let purpose = match action {
            CanvasAction::WidgetCall { widget, call_id, .. } => Request::WidgetCall {
                widget: widget.clone(),
                call_id: call_id.clone(),
            },
            _ => Request::Canvas,
        };
        let sent = self
            .canvas
            .action(action, self.operator.session_key())
            .and_then(|(method, params)| self.request(method, params, purpose).map_err(|e| e.to_string()));
        let Err(why) = sent else { return };
        out.push(match action {
            CanvasAction::WidgetCall { widget, call_id, .. } => {
                Output::Event(Canvas::widget_reply(widget.clone(), call_id.clone(), Err(why)))
            }
            _ => notice(format!("The canvas action was not sent: {why}.")),
        });
    }
}

/// The action as the panel sends it (`{kind: "widgetCall", widget, ...}`), read strictly. Written
/// out, as [`crate::backend::TransportEvent::from_json`] is: serde's derive would read it through
/// its buffered `Content`.
pub(super) fn canvas_action_from_json(value: &Value) -> Result<CanvasAction, String> {
    let what = "the canvas action";
    let kind = value.get("kind").and_then(Value::as_str).unwrap_or_default();
    let fields: &[&str] = match kind {
        "widgetCall" => &["kind", "widget", "callId", "method", "params"],
        "widgetGrant" => &["kind", "widget", "granted", "revision", "instanceId"],
        "document" => &["kind", "docId"],
        "surface" => &["kind", "surfaceId", "action", "context"],
        _ => {
            return Err(format!(
                "{what} needs a `kind`: widgetCall, widgetGrant, document or surface"
            ))
        }
    };
    let action = JsonObject::new(value, what, fields)?;
    Ok(match kind {
        "widgetCall" => CanvasAction::WidgetCall {
            widget: action.string("widget")?,
            call_id: action.string("callId")?,
            method: action.string("method")?,
            params: action.value("params"),
        },
        "widgetGrant" => CanvasAction::WidgetGrant {
            widget: action.string("widget")?,
            granted: action.bool("granted")?,
            revision: action.number("revision", u64::MAX)?,
            instance_id: action.string("instanceId")?,
        },
        "document" => CanvasAction::Document {
            doc_id: action.string("docId")?,
        },
        _ => CanvasAction::Surface {
            surface_id: action.string("surfaceId")?,
            action: action.string("action")?,
            context: action.value("context"),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_canvas_action_is_read_by_its_kind_with_its_defaults() {
        let call = json!({"kind": "widgetCall", "widget": "w", "callId": "1", "method": "state.emit"});
        assert_eq!(
            canvas_action_from_json(&call),
            Ok(CanvasAction::WidgetCall {
                widget: "w".into(),
                call_id: "1".into(),
                method: "state.emit".into(),
                params: Value::Null
            })
        );
        let grant = json!({"kind": "widgetGrant", "widget": "w", "granted": true, "revision": 3, "instanceId": "i"});
        assert_eq!(
            canvas_action_from_json(&grant),
            Ok(CanvasAction::WidgetGrant {
                widget: "w".into(),
                granted: true,
                revision: 3,
                instance_id: "i".into()
            })
        );
        let surface =
            json!({"kind": "surface", "surfaceId": "s", "action": "onClick", "context": {"componentId": "b"}});
        assert!(
            matches!(canvas_action_from_json(&surface), Ok(CanvasAction::Surface { context, .. }) if context["componentId"] == "b")
        );
    }

    #[test]
    fn a_canvas_action_with_a_wrong_kind_field_or_value_is_refused() {
        let read = |value: Value| canvas_action_from_json(&value).unwrap_err();
        assert!(read(json!({"kind": "poke"})).contains("needs a `kind`"));
        assert!(read(json!({"kind": "document", "docId": "d", "widget": "w"})).contains("unknown field `widget`"));
        assert_eq!(
            read(json!({"kind": "widgetGrant", "widget": "w", "granted": "yes", "revision": 1, "instanceId": "i"})),
            "`granted` must be true or false"
        );
        assert_eq!(read(json!({"kind": "document"})), "`docId` is missing");
    }
}
