//! The gateway's canvas as [`CanvasUpdate`]s for the canvas panel. Protocol 4 keeps widgets on
//! the session's board (`board.get`, `board.changed`; each widget's page served by the gateway at
//! its `frameUrl` under its own sandboxing CSP, with a view ticket that its calls through the
//! widget bridge — `board.event`, `board.data.read`, `board.action` — carry) and HTML documents
//! behind `canvas.document.view`. Older gateways push the seed's A2UI surface
//! messages (createSurface, updateComponents, updateDataModel with a JSON Pointer), whose data
//! models are kept here. Everything the gateway sends is data for the panel to render safely;
//! nothing here trusts it.

use super::protocol::frame::GatewayError;
use crate::events::{CanvasAction, CanvasUpdate, CanvasWidget, SurfaceComponent, UiEvent};
use crate::id_table::IdTable;
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// Surfaces kept at once (a gateway that creates them without end cannot grow this).
const SURFACES_KEPT: usize = 64;

/// A gateway method and its params.
pub type Request = (&'static str, Value);

#[derive(Default)]
pub struct Canvas {
    /// `http(s)://host:port` of the gateway: widget pages are fetched from there and nowhere else.
    origin: String,
    /// Each A2UI surface's data model, oldest first.
    surfaces: IdTable<Value>,
    /// Each widget's view ticket from the last board read: a widget's calls carry the ticket the
    /// board gave it, never one the panel names.
    tickets: BTreeMap<String, String>,
}

impl Canvas {
    pub fn new(gateway_url: &str) -> Canvas {
        Canvas {
            origin: http_origin(gateway_url),
            surfaces: IdTable::new(),
            tickets: BTreeMap::new(),
        }
    }

    /// The request that reads the session's board.
    pub fn refresh(session_key: &str) -> Request {
        ("board.get", json!({"sessionKey": session_key}))
    }

    /// A `board.*` event: the request to make, when it changed the watched session's board.
    pub fn on_event(event: &str, payload: &Value, session_key: Option<&str>) -> Option<Request> {
        let ours = payload.get("sessionKey").and_then(Value::as_str) == session_key;
        (event == "board.changed" && ours).then(|| Canvas::refresh(session_key.unwrap_or_default()))
    }

    /// The answer to a canvas request.
    pub fn on_response(&mut self, method: &str, result: Result<Value, GatewayError>) -> Option<UiEvent> {
        let payload = match result {
            Ok(payload) => payload,
            Err(error) => {
                return Some(UiEvent::error(
                    crate::events::ErrorKind::Other,
                    crate::events::Severity::Notice,
                    format!("The canvas could not be updated ({method}): {error}"),
                    None,
                ))
            }
        };
        let update = match method {
            "board.get" => self.board(&payload)?,
            "canvas.document.view" => CanvasUpdate::Document {
                doc_id: text(&payload, "docId").unwrap_or_default(),
                html: text(&payload, "html")?,
            },
            _ => return None,
        };
        Some(UiEvent::Canvas { update })
    }

    /// The answer to a widget's call, for the panel to hand back to the widget.
    pub fn widget_reply(widget: String, call_id: String, result: Result<Value, String>) -> UiEvent {
        let update = match result {
            Ok(result) => CanvasUpdate::WidgetReply {
                widget,
                call_id,
                ok: true,
                result,
                error: None,
            },
            Err(error) => CanvasUpdate::WidgetReply {
                widget,
                call_id,
                ok: false,
                result: Value::Null,
                error: Some(error),
            },
        };
        UiEvent::Canvas { update }
    }

    /// The request that carries a widget's call, a widget grant or a document to show. (A2UI
    /// surface actions are the backend's: they become a message to the agent.)
    pub fn action(&self, action: &CanvasAction, session_key: Option<&str>) -> Result<Request, String> {
        match action {
            CanvasAction::WidgetCall {
                widget, method, params, ..
            } => {
                let ticket = self
                    .tickets
                    .get(widget)
                    .ok_or_else(|| format!("the widget {widget} has no view on the board now (refresh the canvas)"))?;
                widget_call(ticket, method, params)
            }
            CanvasAction::WidgetGrant {
                widget,
                granted,
                revision,
                instance_id,
            } => {
                let key = session_key.ok_or("the canvas has no session to send the decision to")?;
                let decision = if *granted { "granted" } else { "rejected" };
                Ok((
                    "board.widget.grant",
                    json!({"sessionKey": key, "name": widget, "decision": decision,
                        "revision": revision, "instanceId": instance_id}),
                ))
            }
            CanvasAction::Document { doc_id } => Ok(("canvas.document.view", json!({"docId": doc_id}))),
            CanvasAction::Surface { .. } => Err("a surface action is a message to the agent".into()),
        }
    }

    /// A seed A2UI message (`createSurface`, `updateComponents`, `updateDataModel`).
    pub fn on_surface_message(&mut self, message: &Value) -> Option<UiEvent> {
        let update = match text(message, "type").as_deref()? {
            "createSurface" => {
                let surface = message.get("surface")?;
                let surface_id = text(surface, "id")?;
                self.keep(&surface_id, Value::Object(Default::default()));
                CanvasUpdate::Surface {
                    surface_id,
                    title: text(surface, "title"),
                    components: components(message.get("components")),
                }
            }
            "updateComponents" => {
                let surface_id = text(message, "surfaceId")?;
                if !self.surfaces.contains_key(&surface_id) {
                    self.keep(&surface_id, Value::Object(Default::default()));
                }
                CanvasUpdate::Surface {
                    surface_id,
                    title: None,
                    components: components(message.get("components")),
                }
            }
            "updateDataModel" => {
                let surface_id = text(message, "surfaceId")?;
                let pointer = text(message, "pointer").unwrap_or_default();
                let value = message.get("value").cloned().unwrap_or(Value::Null);
                if !self.surfaces.contains_key(&surface_id) {
                    self.keep(&surface_id, json!({}));
                }
                let model = self.surfaces.get_mut(&surface_id)?;
                set_pointer(model, &pointer, value).ok()?;
                CanvasUpdate::SurfaceData {
                    surface_id,
                    model: model.clone(),
                }
            }
            _ => return None,
        };
        Some(UiEvent::Canvas { update })
    }

    fn keep(&mut self, surface_id: &str, model: Value) {
        if self.surfaces.len() >= SURFACES_KEPT && !self.surfaces.contains_key(surface_id) {
            self.surfaces.pop_oldest();
        }
        self.surfaces.insert(surface_id.to_string(), model);
    }

    fn board(&mut self, payload: &Value) -> Option<CanvasUpdate> {
        let widgets: Vec<CanvasWidget> = payload
            .get("widgets")
            .and_then(Value::as_array)?
            .iter()
            .filter_map(|w| {
                let frame_url = text(w, "frameUrl").and_then(|url| self.same_origin(&url));
                Some(CanvasWidget {
                    name: text(w, "name")?,
                    title: text(w, "title"),
                    content_kind: text(w, "contentKind").unwrap_or_default(),
                    revision: w.get("revision").and_then(Value::as_u64).unwrap_or(0),
                    view_ticket: frame_url.as_ref().and_then(|_| text(w, "viewTicket")),
                    view_ticket_ttl_ms: w.get("viewTicketTtlMs").and_then(Value::as_u64),
                    frame_url,
                    grant_state: text(w, "grantState").unwrap_or_else(|| "none".into()),
                    instance_id: text(w, "instanceId"),
                    declared_summary: w
                        .get("declaredSummary")
                        .and_then(Value::as_array)
                        .map(|items| items.iter().filter_map(Value::as_str).map(str::to_string).collect())
                        .unwrap_or_default(),
                })
            })
            .collect();
        self.tickets = crate::sort::map_of(
            widgets
                .iter()
                .filter_map(|w| Some((w.name.clone(), w.view_ticket.clone()?))),
        );
        Some(CanvasUpdate::Board {
            session_id: text(payload, "sessionKey").unwrap_or_default(),
            revision: payload.get("revision").and_then(Value::as_u64).unwrap_or(0),
            widgets,
        })
    }

    /// `url` on the gateway's origin as an absolute URL; None for any other origin (a page the
    /// host would fetch from elsewhere).
    fn same_origin(&self, url: &str) -> Option<String> {
        if self.origin.is_empty() {
            return None;
        }
        if url.starts_with('/') && !url.starts_with("//") {
            return Some(format!("{}{url}", self.origin));
        }
        let rest = url.strip_prefix(&self.origin)?;
        (rest.is_empty() || rest.starts_with('/')).then(|| url.to_string())
    }
}

/// A widget bridge call as the `board.*` request that carries it with the widget's `ticket`.
fn widget_call(ticket: &str, method: &str, params: &Value) -> Result<Request, String> {
    let string = |key: &str| {
        params
            .get(key)
            .and_then(Value::as_str)
            .ok_or_else(|| format!("{method} needs a string {key}"))
    };
    // The gateway takes an object of arguments or none.
    let arguments = || match params.get("params") {
        None | Some(Value::Null) => Ok(None),
        Some(object @ Value::Object(_)) => Ok(Some(object.clone())),
        Some(_) => Err(format!("{method}'s params must be an object")),
    };
    let with_arguments = |mut request: Value, arguments: Option<Value>| {
        if let Some(arguments) = arguments {
            request["params"] = arguments;
        }
        request
    };
    match method {
        "state.emit" => Ok((
            "board.event",
            json!({"ticket": ticket, "payload": params.get("payload").cloned().unwrap_or(Value::Null)}),
        )),
        "data.read" => Ok((
            "board.data.read",
            with_arguments(
                json!({"ticket": ticket, "bindingId": string("bindingId")?}),
                arguments()?,
            ),
        )),
        "action.run" => Ok((
            "board.action",
            with_arguments(json!({"ticket": ticket, "action": string("action")?}), arguments()?),
        )),
        "cron.trigger" => Ok((
            "board.action",
            json!({"ticket": ticket, "action": "cron.trigger", "jobId": string("jobId")?}),
        )),
        other => Err(format!("the widget asked for {other:?}, which Tether does not offer")),
    }
}

/// `ws://host:port/path` → `http://host:port`; `wss` → `https`.
fn http_origin(gateway_url: &str) -> String {
    let (scheme, rest) = match gateway_url.split_once("://") {
        Some(("ws", rest)) => ("http", rest),
        Some(("wss", rest)) => ("https", rest),
        _ => return String::new(),
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    if authority.is_empty() {
        return String::new();
    }
    format!("{scheme}://{authority}")
}

fn components(value: Option<&Value>) -> Vec<SurfaceComponent> {
    value
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(|c| {
                    Some(SurfaceComponent {
                        id: text(c, "id")?,
                        component_type: text(c, "type").unwrap_or_default(),
                        props: c.get("props").cloned().unwrap_or_else(|| json!({})),
                    })
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Set `value` at the JSON Pointer `pointer` (RFC 6901) in `model`, making the objects on the
/// way; `""` replaces the whole model. An array index past the end appends (`-` too).
fn set_pointer(model: &mut Value, pointer: &str, value: Value) -> Result<(), String> {
    if pointer.is_empty() {
        *model = value;
        return Ok(());
    }
    let Some(path) = pointer.strip_prefix('/') else {
        return Err(format!("{pointer:?} is not a JSON Pointer"));
    };
    let tokens: Vec<String> = path
        .split('/')
        .map(|t| t.replace("~1", "/").replace("~0", "~"))
        .collect();
    let mut at = model;
    for (i, token) in tokens.iter().enumerate() {
        let last = i + 1 == tokens.len();
        if at.is_null() {
            *at = json!({});
        }
        at = match at {
            Value::Object(map) => {
                if last {
                    map.insert(token.clone(), value);
                    return Ok(());
                }
                map.entry(token.clone()).or_insert(Value::Null)
            }
            Value::Array(items) => {
                let index = match token.as_str() {
                    "-" => items.len(),
                    t => t.parse::<usize>().map_err(|_| format!("{t:?} is not an array index"))?,
                };
                if index > items.len() {
                    return Err(format!("index {index} is past the end of the array"));
                }
                if index == items.len() {
                    items.push(Value::Null);
                }
                if last {
                    items[index] = value;
                    return Ok(());
                }
                &mut items[index]
            }
            _ => {
                return Err(format!(
                    "{pointer:?} goes through a value that is not an object or array"
                ))
            }
        };
    }
    Ok(())
}

fn text(value: &Value, key: &str) -> Option<String> {
    value.get(key).and_then(Value::as_str).map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointers_set_nested_values_and_make_the_way() {
        let mut model = json!({"results": [{"status": "old"}]});
        set_pointer(&mut model, "/results/0", json!({"status": "done"})).unwrap();
        set_pointer(&mut model, "/a~1b/c", json!(1)).unwrap();
        set_pointer(&mut model, "/results/-", json!("x")).unwrap();
        assert_eq!(model, json!({"results": [{"status": "done"}, "x"], "a/b": {"c": 1}}));
        assert!(set_pointer(&mut model, "/results/9", json!(0)).is_err());
        assert!(set_pointer(&mut model, "nope", json!(0)).is_err());
        set_pointer(&mut model, "", json!([])).unwrap();
        assert_eq!(model, json!([]));
    }

    #[test]
    fn widget_pages_come_from_the_gateways_origin_only() {
        let canvas = Canvas::new("ws://127.0.0.1:18789/");
        assert_eq!(
            canvas.same_origin("/__openclaw__/board/x/index.html?bt=1").as_deref(),
            Some("http://127.0.0.1:18789/__openclaw__/board/x/index.html?bt=1")
        );
        assert_eq!(
            canvas.same_origin("http://127.0.0.1:18789/a").as_deref(),
            Some("http://127.0.0.1:18789/a")
        );
        assert_eq!(canvas.same_origin("http://127.0.0.1:187890/a"), None);
        assert_eq!(canvas.same_origin("//evil.example/a"), None);
        assert_eq!(canvas.same_origin("https://evil.example/a"), None);
        assert_eq!(Canvas::new("wss://gw.example/x").origin, "https://gw.example");
    }

    #[test]
    fn data_for_new_surfaces_keeps_the_newest_sixty_four_models() {
        let mut canvas = Canvas::new("ws://127.0.0.1:18789/");
        for n in 0..SURFACES_KEPT + 6 {
            let message = json!({"type": "updateDataModel", "surfaceId": format!("s{n}"), "pointer": "/n", "value": n});
            assert!(canvas.on_surface_message(&message).is_some(), "s{n}");
        }
        assert_eq!(canvas.surfaces.len(), SURFACES_KEPT);
        let kept: Vec<&String> = canvas.surfaces.keys().collect();
        assert_eq!((kept[0].as_str(), kept[SURFACES_KEPT - 1].as_str()), ("s6", "s69"));
        assert_eq!(canvas.surfaces.values().last(), Some(&json!({"n": 69})));
    }
}
