//! What watches the agents for what no hook says (docs/model.md §8): their transcripts and
//! processes (`watch`), their own names for their sessions (`titles`), their usage, footprint and
//! git state (`meter`), their panes' screens (`screen`), and which transcript may be read at all
//! (`transcript`). Each sends what it finds to the hub as an input.

pub mod meter;
pub mod screen;
pub mod titles;
/// Which transcript file may be read (issue 45: confined to its CLI's folder).
pub mod transcript;
pub mod watch;
