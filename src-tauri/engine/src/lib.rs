//! The engine: everything with IO but no window.
