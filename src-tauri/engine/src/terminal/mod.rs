//! The one door to an agent's terminal (issues 33 and 35): tmux access, the tie that proves a
//! pane shows one session, typing into it as its CLI takes input, picking an option on a form
//! that moves a cursor with the arrows, and reading its screen — or, where a CLI's daemon serves
//! the session (Codex's app-server), its own protocol instead of any typing.
//! Answers, replies, peek's screen, the live terminal and Jump all come through here, so what
//! is typed or shown always goes where it is proven to belong — or nowhere, with the reason.

pub mod app_server;
pub mod form;
pub mod tie;
pub mod tmux;
pub mod typing;

pub use tie::{tied_pane, Pane, TieError};
