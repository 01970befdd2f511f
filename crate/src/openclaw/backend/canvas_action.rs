//! The canvas panel's actions sent to the gateway: a widget's call (answered back to the widget
//! whatever happens, so its promise never hangs), a widget grant, a document to show.

use super::outputs::notice;
use super::{OpenClawBackend, Request};
use crate::backend::Output;
use crate::events::CanvasAction;
use crate::openclaw::canvas::Canvas;

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
