//! Whole-process tests: the hook server over real TCP on loopback, `switchboard serve`, the
//! `hook` forwarder and `status`, each against a real instance in a temporary state directory.

mod answer;
mod cli;
mod decide;
mod docs;
mod doctor;
mod forwarder;
mod hook_server;
mod hostile;
mod installer;
mod launch;
mod link;
mod notify;
mod observed;
mod persistence;
mod private_files;
mod push;
mod queue;
mod remote;
mod support;
mod titles;
mod transcripts;
mod usage;
