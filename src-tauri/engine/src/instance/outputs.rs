//! What is told of every change, each a subscriber of the hub on its own schedule: the SQLite
//! store (`store`, write-behind), the desktop notifications (`notifier`), and the push channels
//! (`push`, ntfy and a webhook).

pub mod notifier;
pub mod push;
pub mod store;
