// The normalized UI events (crate/src/events.rs `UiEvent`), generated from the Rust types; the
// named ones are the events the driver and its front ends look into.

import type { UiEvent } from "../generated/core";

export type { ErrorKind, UiEvent } from "../generated/core";

export type PermissionRequestEvent = Extract<UiEvent, { type: "permissionRequest" }>;
export type DoneEvent = Extract<UiEvent, { type: "done" }>;
export type ErrorEvent = Extract<UiEvent, { type: "error" }>;
export type SessionInitEvent = Extract<UiEvent, { type: "sessionInit" }>;
export type PermissionCancelledEvent = Extract<UiEvent, { type: "permissionCancelled" }>;

export function isEvent<T extends UiEvent["type"]>(event: UiEvent, type: T): event is Extract<UiEvent, { type: T }> {
  return event.type === type;
}
