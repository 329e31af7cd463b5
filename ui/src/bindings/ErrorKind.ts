// Generated from the Rust types by ts-rs (src-tauri/engine/src/bindings.rs). Do not edit.

export type ErrorKind = "unknownSession" | "badPosition" | "notWaiting" | "stopping" | "unknownAgent" | "noAgentCli" | "noHome" | "noStateDir" | "unparsable" | "hasComments" | "shape" | "readOnly" | "commandPath" | "io" | "autostart" | "internal" | "notDelivered";
