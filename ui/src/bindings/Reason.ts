// Generated from the Rust types by ts-rs (src-tauri/core/src/bindings.rs). Do not edit.
import type { Look } from "./Look";

export type Reason = { 
/**
 * A heading before the text ("Needs permission: Bash").
 */
lead: string | null, 
/**
 * Whitespace collapsed and clipped to [`crate::view::REASON_CHARS`]: what the card shows.
 */
text: string, 
/**
 * The whole of it, for the tooltip; `null` when it is `lead` and `text` as they stand.
 */
full: string | null, look: Look, };
