// Generated from the Rust types by ts-rs (src-tauri/core/src/bindings.rs). Do not edit.
import type { QuestionOption } from "./QuestionOption";

export type Question = { 
/**
 * A short label for it (the tab the CLI draws), when given.
 */
header: string | null, question: string, 
/**
 * The choices, numbered from 1 in this order (as the CLI draws them: key `2` picks the second).
 */
options: Array<QuestionOption>, 
/**
 * More than one option may be chosen.
 */
multiSelect: boolean, };
