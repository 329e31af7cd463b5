// Generated from the Rust types by ts-rs (src-tauri/core/src/bindings.rs). Do not edit.

export type Usage = { 
/**
 * The model of its last request, as the CLI names it.
 */
model: string | null, 
/**
 * Input tokens not read from a cache.
 */
inputTokens: number, outputTokens: number, 
/**
 * Input tokens read from the provider's prompt cache.
 */
cacheReadTokens: number, 
/**
 * Input tokens written to the prompt cache (Claude).
 */
cacheWriteTokens: number, 
/**
 * The context in use: the last request's input and output.
 */
contextTokens: number, 
/**
 * The model's context window, when known (from the CLI, else the pricing table).
 */
contextWindow: number | null, 
/**
 * Estimated cost in millionths of a US dollar; `null` when the model has no price.
 */
costMicros: number | null, 
/**
 * Model responses counted.
 */
requests: number, };
